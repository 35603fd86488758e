"""What cannot apply is known not to apply: GPU-only advisories on a run without a usable GPU,
compile advisories on a run that did not compile; and "why it applies" names what decided."""

from __future__ import annotations

import re
from typing import Any

import pytest

from envsnap.audit import audit_document, load
from envsnap.audit.conditions import tests_of as conditions_tests
from envsnap.audit.database import Advisory, bundled
from envsnap.audit.facts import run_compiled, run_gpu
from envsnap.audit.render import why
from envsnap.manifest.model import manifest_from_document
from tests.helpers.advisories import DELETE, FULL, edited, trigger

# Words of an advisory about GPU libraries or GPU hardware.
_GPU_WORDS = re.compile(
    r"cuDNN|cuBLAS|NCCL|CUDA|GPU|MI[23]00|Hopper|Blackwell|B200|Ampere|sm\d\d|A100|H100|TF32"
)
CPU_ONLY_BUILD = {"torch.cuda_built": False, "torch.hip": None, "gpu": None}
NO_GPU_FOUND = {"gpu.device_count": 0, "gpu.devices": {}, "gpu.links": {}, "gpu.visible": []}
ALL_HIDDEN = {"gpu.cuda_visible_devices": "", "gpu.visible": []}
WRAPPED = {"parallel.model_wrappers": ["torch._dynamo.eval_frame.OptimizedModule"]}


def _facts(advisory: Advisory) -> set[str]:
    return {test.fact for test in conditions_tests(advisory.when)} if advisory.when else set()


# Chosen by what the advisories are about, not by how their conditions are written.
GPU_ONLY = sorted(
    a.id
    for a in bundled().advisories
    if _GPU_WORDS.search(f"{a.record.summary} {a.record.details}")
    or any(name.startswith("nvidia-") for name, _ in a.packages)
)
COMPILE = sorted(
    a.id for a in bundled().advisories if any(f.startswith("torch.compile") for f in _facts(a))
)


def _statuses(doc: dict[str, Any]) -> dict[str, str]:
    return {f.id: f.status for f in audit_document(doc, load())}


def test_every_advisory_about_gpus_reads_whether_the_run_has_one() -> None:
    assert len(GPU_ONLY) >= 20 and len(COMPILE) == 3
    assert all("run:gpu" in _facts(a) for a in bundled().advisories if a.id in GPU_ONLY)
    assert all("run:compiled" in _facts(a) for a in bundled().advisories if a.id in COMPILE)


@pytest.mark.parametrize("advisory_id", GPU_ONLY)
@pytest.mark.parametrize(
    "edits", [CPU_ONLY_BUILD, NO_GPU_FOUND, ALL_HIDDEN], ids=["cpu-build", "no-gpu", "hidden"]
)
def test_a_gpu_only_advisory_does_not_apply_without_a_gpu(
    advisory_id: str, edits: dict[str, Any]
) -> None:
    doc = trigger(advisory_id)
    assert _statuses(doc).get(advisory_id) == "affected"
    assert advisory_id not in _statuses(edited(edits, base=doc))


def test_a_cpu_only_laptop_meets_no_gpu_advisory() -> None:
    # As captured on a laptop: torch +cpu, no NVML (gpu not captured), no cuDNN version.
    laptop = edited(
        CPU_ONLY_BUILD,
        {"torch.cudnn.version": None, "torch.nccl_version": None, "torch.version": "2.13.0+cpu"},
        {"packages.installed.torch.version": "2.13.0+cpu"},
    )
    manifest_from_document(laptop, "laptop.json")  # a manifest a capture could write
    assert not set(_statuses(laptop)) & set(GPU_ONLY)


def test_a_cuda_build_with_gpus_not_captured_is_unknown_not_clear() -> None:
    doc = edited({"gpu": None}, base=trigger("ENVSNAP-2026-0001"))
    assert run_gpu(doc) is None
    assert _statuses(doc).get("ENVSNAP-2026-0001") == "possible"


def test_run_gpu_reads_the_build_the_devices_and_what_torch_probed() -> None:
    assert run_gpu(FULL) == (True,)
    assert run_gpu(edited(CPU_ONLY_BUILD)) == (False,)
    assert run_gpu(edited({"torch.cuda_built": False, "torch.hip": "6.2.4"})) == (True,)
    assert run_gpu(edited({"gpu": None, "torch.cuda_available": False})) == (False,)
    assert run_gpu(edited({"gpu": None, "torch.cuda_available": True})) == (True,)
    assert run_gpu(edited({"gpu": None, "torch": None})) is None


@pytest.mark.parametrize("advisory_id", COMPILE)
def test_a_compile_advisory_needs_evidence_that_compile_ran(advisory_id: str) -> None:
    compiled = trigger(advisory_id)
    assert _statuses(compiled).get(advisory_id) == "affected"
    # Inductor imported (its settings recorded) but the model not compiled: unknown, since a
    # library may import Inductor without compiling anything.
    imported_only = edited({"parallel.model_wrappers": []}, base=compiled)
    assert _statuses(imported_only).get(advisory_id) == "possible"
    # Compilation switched off: torch.compile is a no-op, the advisory cannot apply.
    for variable in ("TORCH_COMPILE_DISABLE", "TORCHDYNAMO_DISABLE"):
        off = edited({f"env.variables.{variable}": "1"}, base=compiled)
        assert advisory_id not in _statuses(off)


def test_run_compiled_is_unknown_when_the_manifest_says_nothing() -> None:
    assert FULL["torch"]["compile"] is None and not FULL["parallel"]["model_wrappers"]
    assert run_compiled(FULL) is None
    assert run_compiled(edited(WRAPPED)) == (True,)
    assert run_compiled(edited({"env.variables.TORCH_COMPILE_DISABLE": "1"})) == (False,)
    assert run_compiled(edited({"env": DELETE})) is None
    assert {_statuses(FULL).get(ident) for ident in COMPILE} == {"possible"}


def test_why_names_the_value_that_decided_not_every_value() -> None:
    flags = [f"avx512_{n}" for n in range(20)] + ["avx", "avx2", "fma", "sse4_2"]
    doc = edited({"system.cpu.isa_flags": flags})
    finding = next(f for f in audit_document(doc, load()) if f.id == "ENVSNAP-2023-0008")
    text = why(finding)
    assert '"avx512_0"' in text and "avx512_1" not in text and "sse4_2" not in text
    # JSON keeps every value the test read.
    assert finding.facts[0].values == flags and finding.facts[0].deciding == ["avx512_0"]


def test_why_shows_a_value_shared_by_every_gpu_once() -> None:
    finding = next(
        f
        for f in audit_document(trigger("ENVSNAP-2026-0001"), load())
        if f.id == "ENVSNAP-2026-0001"
    )
    assert why(finding).count('"10.0"') == 1
