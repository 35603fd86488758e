"""The gpu collector against a fake NVML loaded with documented values of real GPUs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pynvml
import pytest

from envsnap.capturing.collectors import COLLECTORS
from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.capturing.collectors.gpu import read_gpus, uuid_hash, visible_devices
from envsnap.manifest.records import plain
from tests.fixtures.nvml.fake_nvml import FakeNvml, device_spec
from tests.helpers import assert_valid_section

ALL = ["v100", "a100", "a100_mig", "h100", "rtx4090", "l4"]
MIB = 1024 * 1024


@pytest.mark.parametrize(
    ("key", "cc", "arch", "tf32", "fp8", "flash"),
    [
        ("v100", "7.0", "Volta", False, False, False),
        ("a100", "8.0", "Ampere", True, False, True),
        ("h100", "9.0", "Hopper", True, True, True),
        ("rtx4090", "8.9", "Ada Lovelace", True, True, True),
        ("l4", "8.9", "Ada Lovelace", True, True, True),
    ],
)
def test_documented_devices_are_recorded(
    key: str, cc: str, arch: str, tf32: bool, fp8: bool, flash: bool
) -> None:
    spec = device_spec(key)
    section = read_gpus(FakeNvml([key]), {})
    device = section.devices["0"]
    assert device.name == spec["name"]
    assert device.compute_capability == cc
    assert device.arch == arch
    assert device.capabilities is not None
    assert (device.capabilities.tf32, device.capabilities.bf16) == (tf32, tf32)
    assert (device.capabilities.fp8, device.capabilities.flash_sdpa) == (fp8, flash)
    assert device.memory_total_bytes == spec["memory_total_mib"] * MIB
    assert device.power_limit_w == spec["power_limit_mw"] / 1000
    assert device.pci_bus_id == spec["pci_bus_id"]
    assert device.nvlink_active_links == (spec["nvlink_links"] or None)
    assert section.driver_version == "550.54.15"
    assert section.cuda_driver_version == "12.4"


def test_uuid_is_hashed_never_recorded() -> None:
    section = read_gpus(FakeNvml(["a100"]), {})
    uuid = device_spec("a100")["uuid"]
    assert section.devices["0"].uuid_hash == uuid_hash(uuid)
    assert uuid not in json.dumps(plain(section))


def test_unsupported_calls_are_recorded_per_field() -> None:
    section = read_gpus(FakeNvml(["rtx4090"]), {})
    device = section.devices["0"]
    # GeForce: no ECC, no MIG, no NVLink. Each is null with its own reason; the rest is filled.
    assert device.ecc_enabled is None
    assert "Not Supported" in section.unknown["devices.0.ecc_enabled"]
    assert device.mig_mode is None and "devices.0.mig_mode" in section.unknown
    assert "devices.0.nvlink_active_links" in section.unknown
    assert section.unknown["devices.0.sm_count"] == "NVML reports SM counts for MIG instances only"
    assert device.compute_capability == "8.9"
    assert device.persistence_mode is True
    assert device.compute_mode == "default"


def test_a_failing_call_costs_only_its_field() -> None:
    nvml = FakeNvml(
        ["h100"], failing={"nvmlDeviceGetEnforcedPowerLimit": pynvml.NVML_ERROR_NO_PERMISSION}
    )
    section = read_gpus(nvml, {})
    assert section.devices["0"].power_limit_w is None
    assert section.unknown["devices.0.power_limit_w"] == (
        "nvmlDeviceGetEnforcedPowerLimit: NVML error 4 (Insufficient Permissions)"
    )
    assert section.devices["0"].compute_capability == "9.0"
    assert nvml.refcount == 0


def test_mig_slice_is_recorded_with_profile_and_sm_count() -> None:
    section = read_gpus(FakeNvml(["a100_mig"]), {})
    device = section.devices["0"]
    assert device.mig_mode is True and device.mig_mode_pending is True
    [mig] = device.mig_devices
    assert mig.profile == "3g.40gb"
    assert mig.sm_count == 42
    assert mig.gpu_instance_id == 2 and mig.compute_instance_id == 0
    assert mig.uuid_hash == uuid_hash(device_spec("a100_mig")["mig_devices"][0]["uuid"])


def test_cuda_visible_devices_follows_cuda_rules() -> None:
    nvml = FakeNvml(ALL)
    mig_uuid = device_spec("a100_mig")["mig_devices"][0]["uuid"]
    h100_uuid = device_spec("h100")["uuid"]
    env = {"CUDA_VISIBLE_DEVICES": f"{h100_uuid[:-2]},{mig_uuid},1,9,0"}
    section = read_gpus(nvml, env)
    # A UUID prefix selects the H100, the MIG UUID its slice, then index 1; 9 does not exist,
    # so CUDA stops enumerating there and device 0 stays hidden.
    assert [(v.cuda_index, v.gpu_index, v.mig_index) for v in section.visible] == [
        (0, 3, None),
        (1, 2, 0),
        (2, 1, None),
    ]
    assert section.cuda_visible_devices is not None
    assert h100_uuid[:-2] not in section.cuda_visible_devices
    assert mig_uuid not in json.dumps(plain(section))


def test_ambiguous_uuid_prefix_stops_enumeration() -> None:
    # Every synthetic UUID starts with GPU-00000000: the prefix matches several boards.
    section = read_gpus(FakeNvml(ALL), {"CUDA_VISIBLE_DEVICES": "0,GPU-00000000,1"})
    assert [v.gpu_index for v in section.visible] == [0]


def test_all_devices_visible_when_variable_unset() -> None:
    section = read_gpus(FakeNvml(["v100", "a100"]), {})
    assert [v.gpu_index for v in section.visible] == [0, 1]
    assert section.cuda_visible_devices is None


def test_empty_variable_hides_every_device() -> None:
    section = read_gpus(FakeNvml(["v100", "a100"]), {"CUDA_VISIBLE_DEVICES": ""})
    assert section.visible == []


def test_topology_links() -> None:
    nvml = FakeNvml(
        ["h100", "h100", "h100"],
        topology={(0, 1): (pynvml.NVML_TOPOLOGY_SINGLE, True)},
    )
    section = read_gpus(nvml, {})
    assert section.links["0-1"].topology == "single_switch"
    assert section.links["0-1"].nvlink is True
    assert section.links["0-2"].topology == "system"
    assert section.links["1-2"].nvlink is False


def test_driver_not_loaded_is_skipped_with_reason() -> None:
    nvml = FakeNvml(["a100"], init_error=pynvml.NVML_ERROR_DRIVER_NOT_LOADED)
    with pytest.raises(CollectorUnavailable, match="driver is not loaded"):
        read_gpus(nvml, {})
    assert nvml.shutdown_calls == 0


def test_other_init_failure_is_an_error_not_a_skip() -> None:
    nvml = FakeNvml(["a100"], init_error=pynvml.NVML_ERROR_NO_PERMISSION)
    with pytest.raises(RuntimeError, match="nvmlInit failed"):
        read_gpus(nvml, {})


def test_nvml_is_shut_down_even_when_reading_fails() -> None:
    nvml = FakeNvml(["a100"], failing={"nvmlDeviceGetCount": pynvml.NVML_ERROR_UNKNOWN})
    with pytest.raises(pynvml.NVMLError):
        read_gpus(nvml, {})
    assert (nvml.init_calls, nvml.shutdown_calls, nvml.refcount) == (1, 1, 0)


def test_missing_nvml_library_on_this_host_is_skipped(tmp_path: Path) -> None:
    # The real nvidia-ml-py is installed here but libnvidia-ml.so is not: a true missing library.
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_LibraryNotFound:
        pass
    else:  # pragma: no cover - only on a GPU host
        pynvml.nvmlShutdown()
        pytest.skip("this host has NVML")
    context = CaptureContext(env={}, cwd=tmp_path)
    with pytest.raises(CollectorUnavailable, match="libnvidia-ml"):
        COLLECTORS["gpu"].collect(context)


def test_missing_binding_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` now raises ImportError
    with pytest.raises(CollectorUnavailable, match="nvidia-ml-py is not installed"):
        COLLECTORS["gpu"].collect(CaptureContext(env={}, cwd=tmp_path))


def test_visible_devices_for_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", FakeNvml(["v100", "a100"]))
    devices, reason = visible_devices({"CUDA_VISIBLE_DEVICES": "1"})
    assert devices is not None
    assert [(d.name, d.cc) for d in devices] == [("NVIDIA A100-SXM4-80GB", "8.0")]
    assert "1 visible of 2" in reason


def test_section_round_trips_through_the_manifest_schema() -> None:
    section = read_gpus(FakeNvml(ALL), {})
    assert_valid_section("gpu", section)


@pytest.mark.slow
def test_missing_library_is_detected_before_importing_pynvml() -> None:
    # Real subprocess on this GPU-less host: the collector must not pay for importing pynvml.
    code = (
        "import sys\n"
        "from envsnap.capturing.collectors.base import CollectorUnavailable\n"
        "from envsnap.capturing.collectors.nvml import load_nvml\n"
        "try:\n"
        "    load_nvml()\n"
        "except CollectorUnavailable as exc:\n"
        "    print(exc, 'pynvml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    absent = ("not on the loader's search path", "cannot be loaded")
    if not any(reason in done.stdout for reason in absent):  # pragma: no cover - GPU host
        pytest.skip("this host has libnvidia-ml")
    assert done.stdout.strip().endswith("False")
