"""`gpu`: driver, devices, MIG, topology and the CUDA_VISIBLE_DEVICES mapping, read through NVML.

NVML (nvidia-ml-py's `pynvml`) reads the driver's view of the hardware without creating a CUDA
context, so capture never initialises CUDA. Each NVML call that fails is recorded on its own field
in `unknown` ("devices.0.ecc_enabled": "NVML error 3 (Not Supported)") instead of failing the
section. NVML is always shut down again, whatever happened.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.nvml import NvmlReader, error_text, load_nvml, nvml_session
from envsnap.manifest.effective import Device
from envsnap.manifest.records import (
    GpuCapabilities,
    GpuDevice,
    GpuLink,
    GpuSection,
    MigDevice,
    VisibleDevice,
)

_COMPUTE_MODES = {
    0: "default",
    1: "exclusive_thread",
    2: "prohibited",
    3: "exclusive_process",
}
_TOPOLOGY = {
    0: "internal",
    10: "single_switch",
    20: "multiple_switches",
    30: "host_bridge",
    40: "numa_node",
    50: "system",
}
_MIG_PROFILE = re.compile(r"\b(\d+g\.\d+gb(?:\+\w+)?)\b", re.IGNORECASE)
_NVML_CLOCK_GRAPHICS = 0
_NVML_CLOCK_MEM = 2
_NVML_P2P_CAPS_INDEX_NVLINK = 2
_NVML_MAX_LINKS = 36


def uuid_hash(uuid: str) -> str:
    """Identify a board across manifests without recording its UUID."""
    return hashlib.sha256(uuid.encode()).hexdigest()[:16]


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _cc(reader: NvmlReader, key: str, handle: Any) -> str | None:
    from envsnap.manifest import gpu_table  # loaded only where there is a GPU to look up

    value = reader.call(f"{key}.compute_capability", "nvmlDeviceGetCudaComputeCapability", handle)
    return gpu_table.format_cc(*value) if value else None


def _nvlink(reader: NvmlReader, key: str, handle: Any) -> int | None:
    active = 0
    for link in range(_NVML_MAX_LINKS):
        try:
            state = reader.nvml.nvmlDeviceGetNvLinkState(handle, link)
        except reader.nvml.NVMLError as exc:
            if link == 0:
                reason = error_text(reader.nvml, exc)
                reader.unknown[f"{key}.nvlink_active_links"] = f"nvmlDeviceGetNvLinkState: {reason}"
                return None
            break  # Past the last link of this GPU.
        active += bool(state)
    return active


def _mig_devices(reader: NvmlReader, key: str, handle: Any) -> list[MigDevice]:
    count = reader.call(f"{key}.mig_devices", "nvmlDeviceGetMaxMigDeviceCount", handle) or 0
    devices: list[MigDevice] = []
    for mig_index in range(count):
        try:
            mig = reader.nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, mig_index)
        except reader.nvml.NVMLError:
            continue  # Empty slot: no instance at this index.
        mkey = f"{key}.mig_devices.{mig_index}"
        name = reader.call(f"{mkey}.profile", "nvmlDeviceGetName", mig)
        match = _MIG_PROFILE.search(_text(name)) if name is not None else None
        uuid = reader.call(f"{mkey}.uuid_hash", "nvmlDeviceGetUUID", mig)
        memory = reader.call(f"{mkey}.memory_total_bytes", "nvmlDeviceGetMemoryInfo", mig)
        attributes = reader.call(f"{mkey}.sm_count", "nvmlDeviceGetAttributes", mig)
        devices.append(
            MigDevice(
                index=mig_index,
                profile=match.group(1) if match else None,
                uuid_hash=uuid_hash(_text(uuid)) if uuid is not None else None,
                gpu_instance_id=reader.call(
                    f"{mkey}.gpu_instance_id", "nvmlDeviceGetGpuInstanceId", mig
                ),
                compute_instance_id=reader.call(
                    f"{mkey}.compute_instance_id", "nvmlDeviceGetComputeInstanceId", mig
                ),
                memory_total_bytes=int(memory.total) if memory is not None else None,
                sm_count=int(attributes.multiprocessorCount) if attributes is not None else None,
            )
        )
    return devices


def read_device(reader: NvmlReader, index: int, handle: Any) -> GpuDevice:
    from envsnap.manifest import gpu_table

    key = f"devices.{index}"
    name = reader.call(f"{key}.name", "nvmlDeviceGetName", handle)
    uuid = reader.call(f"{key}.uuid_hash", "nvmlDeviceGetUUID", handle)
    pci = reader.call(f"{key}.pci_bus_id", "nvmlDeviceGetPciInfo", handle)
    cc = _cc(reader, key, handle)
    memory = reader.call(f"{key}.memory_total_bytes", "nvmlDeviceGetMemoryInfo", handle)
    mig = reader.call(f"{key}.mig_mode", "nvmlDeviceGetMigMode", handle)
    mig_on = bool(mig[0]) if mig is not None else None
    attributes = reader.call(f"{key}.sm_count", "nvmlDeviceGetAttributes", handle)
    if attributes is None and "Not Supported" in reader.unknown.get(f"{key}.sm_count", ""):
        # nvmlDeviceGetAttributes_v2 docs: "This API currently only supports MIG device handles."
        reader.unknown[f"{key}.sm_count"] = "NVML reports SM counts for MIG instances only"
    ecc = reader.call(f"{key}.ecc_enabled", "nvmlDeviceGetEccMode", handle)
    persistence = reader.call(f"{key}.persistence_mode", "nvmlDeviceGetPersistenceMode", handle)
    compute_mode = reader.call(f"{key}.compute_mode", "nvmlDeviceGetComputeMode", handle)
    power = reader.call(f"{key}.power_limit_w", "nvmlDeviceGetEnforcedPowerLimit", handle)
    graphics = reader.call(
        f"{key}.app_clock_graphics_mhz",
        "nvmlDeviceGetApplicationsClock",
        handle,
        _NVML_CLOCK_GRAPHICS,
    )
    memory_clock = reader.call(
        f"{key}.app_clock_memory_mhz", "nvmlDeviceGetApplicationsClock", handle, _NVML_CLOCK_MEM
    )
    caps = gpu_table.capabilities(cc) if cc else None
    return GpuDevice(
        index=index,
        name=_text(name) if name is not None else None,
        uuid_hash=uuid_hash(_text(uuid)) if uuid is not None else None,
        pci_bus_id=_text(pci.busId) if pci is not None else None,
        compute_capability=cc,
        arch=gpu_table.arch_name(cc) if cc else None,
        capabilities=GpuCapabilities(**vars(caps)) if caps else None,
        memory_total_bytes=int(memory.total) if memory is not None else None,
        sm_count=int(attributes.multiprocessorCount) if attributes is not None else None,
        mig_mode=mig_on,
        mig_mode_pending=bool(mig[1]) if mig is not None else None,
        mig_devices=_mig_devices(reader, key, handle) if mig_on else [],
        ecc_enabled=bool(ecc[0]) if ecc is not None else None,
        persistence_mode=bool(persistence) if persistence is not None else None,
        compute_mode=_COMPUTE_MODES.get(compute_mode) if compute_mode is not None else None,
        power_limit_w=round(power / 1000, 3) if power is not None else None,
        app_clock_graphics_mhz=graphics,
        app_clock_memory_mhz=memory_clock,
        nvlink_active_links=_nvlink(reader, key, handle),
    )


def _links(reader: NvmlReader, handles: list[Any]) -> dict[str, GpuLink]:
    links: dict[str, GpuLink] = {}
    for i, first in enumerate(handles):
        for j in range(i + 1, len(handles)):
            key = f"links.{i}-{j}"
            level = reader.call(
                f"{key}.topology", "nvmlDeviceGetTopologyCommonAncestor", first, handles[j]
            )
            p2p = reader.call(
                f"{key}.nvlink",
                "nvmlDeviceGetP2PStatus",
                first,
                handles[j],
                _NVML_P2P_CAPS_INDEX_NVLINK,
            )
            links[f"{i}-{j}"] = GpuLink(
                topology=_TOPOLOGY.get(level, str(level)) if level is not None else None,
                nvlink=(p2p == 0) if p2p is not None else None,
            )
    return links


def _match_uuid(
    entry: str, uuids: Mapping[tuple[int, int | None], str]
) -> tuple[int, int | None] | None:
    """(gpu_index, mig_index) for a GPU-/MIG- UUID; a unique prefix is enough, as in CUDA."""
    hits = [ident for ident, uuid in uuids.items() if uuid.lower().startswith(entry.lower())]
    return hits[0] if len(hits) == 1 else None


def resolve_visible(
    value: str | None,
    devices: Mapping[str, GpuDevice],
    uuids: Mapping[tuple[int, int | None], str],
) -> tuple[list[VisibleDevice], str | None]:
    """Map CUDA_VISIBLE_DEVICES onto NVML devices, following CUDA's rules.

    Entries are indices or (prefixes of) GPU-/MIG- UUIDs; enumeration stops at the first entry
    that matches no device (CUDA programming guide, "CUDA Environment Variables"). Returns the
    mapping and the variable with UUIDs replaced by their hash prefix.
    """
    if value is None:
        return [
            VisibleDevice(cuda_index=n, selector=key, gpu_index=int(key))
            for n, key in enumerate(sorted(devices, key=int))
        ], None
    visible: list[VisibleDevice] = []
    shown: list[str] = []
    stopped = False
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            continue
        ident: tuple[int, int | None] | None = None
        if entry.isdigit():
            selector = entry
            ident = (int(entry), None) if entry in devices else None
        else:
            ident = _match_uuid(entry, uuids)
            digest = uuid_hash(uuids[ident]) if ident else uuid_hash(entry)
            selector = f"{entry.split('-', 1)[0]}-#{digest}"
        shown.append(selector)
        if ident is None or stopped:
            stopped = True
            continue
        visible.append(
            VisibleDevice(
                cuda_index=len(visible), selector=selector, gpu_index=ident[0], mig_index=ident[1]
            )
        )
    return visible, ",".join(shown)


def read_gpus(nvml: Any, env: Mapping[str, str]) -> GpuSection:
    """The whole section from an NVML binding (pynvml or a test double)."""
    reader = NvmlReader(nvml)
    with nvml_session(nvml):
        count = nvml.nvmlDeviceGetCount()
        driver = reader.call("driver_version", "nvmlSystemGetDriverVersion")
        cuda = reader.call("cuda_driver_version", "nvmlSystemGetCudaDriverVersion_v2")
        nvml_version = reader.call("nvml_version", "nvmlSystemGetNVMLVersion")
        handles: list[Any] = []
        devices: dict[str, GpuDevice] = {}
        uuids: dict[tuple[int, int | None], str] = {}
        for index in range(count):
            handle = reader.call(f"devices.{index}", "nvmlDeviceGetHandleByIndex", index)
            if handle is None:
                continue
            handles.append(handle)
            devices[str(index)] = read_device(reader, index, handle)
            uuid = _quiet(nvml, "nvmlDeviceGetUUID", handle)
            if uuid is not None:
                uuids[(index, None)] = _text(uuid)
            for mig in devices[str(index)].mig_devices:
                mig_handle = _quiet(nvml, "nvmlDeviceGetMigDeviceHandleByIndex", handle, mig.index)
                mig_uuid = _quiet(nvml, "nvmlDeviceGetUUID", mig_handle) if mig_handle else None
                if mig_uuid is not None:
                    uuids[(index, mig.index)] = _text(mig_uuid)
        links = _links(reader, handles)
    visible, shown = resolve_visible(env.get("CUDA_VISIBLE_DEVICES"), devices, uuids)
    return GpuSection(
        driver_version=_text(driver) if driver is not None else None,
        cuda_driver_version=f"{cuda // 1000}.{cuda % 1000 // 10}" if cuda is not None else None,
        nvml_version=_text(nvml_version) if nvml_version is not None else None,
        device_count=count,
        devices=devices,
        links=links,
        cuda_visible_devices=shown,
        cuda_device_order=env.get("CUDA_DEVICE_ORDER"),
        visible=visible,
        unknown=dict(sorted(reader.unknown.items())),
    )


def _quiet(nvml: Any, function: str, *args: Any) -> Any:
    try:
        return getattr(nvml, function)(*args)
    except nvml.NVMLError:
        return None


def visible_devices(env: Mapping[str, str]) -> tuple[list[Device] | None, str]:
    """The devices a job would see (name, compute capability), for precision resolution.

    Returns (None, reason) when they cannot be read.
    """
    try:
        section = read_gpus(load_nvml(), env)
    except CollectorUnavailable as exc:
        return None, str(exc)
    except Exception as exc:  # NVML misbehaving must not break the torch section.
        return None, f"NVML failed: {type(exc).__name__}: {exc}"
    devices = []
    for entry in section.visible:
        gpu = section.devices.get(str(entry.gpu_index))
        if gpu is None:
            continue
        devices.append(Device(name=gpu.name or f"GPU {entry.gpu_index}", cc=gpu.compute_capability))
    return devices, f"{len(devices)} visible of {section.device_count} (NVML)"


def collect(context: CaptureContext) -> GpuSection:
    return read_gpus(load_nvml(), context.env)


COLLECTOR = Collector(
    name="gpu",
    collect=collect,
    # NVML init loads the driver's state; without persistence mode that alone can take seconds.
    timeout_s=8.0,
    description="GPUs, driver, MIG and topology through NVML",
)
