"""The audit's verdict on a CPU bf16 setting follows `op_precision`, the fact the differ reads:
affected where the CPU runs fp32 math in bf16, silent where it has no bf16 kernels, possible
where the manifest cannot tell."""

from __future__ import annotations

from typing import Any

from envsnap.audit import audit_document, load
from envsnap.audit.facts import resolver
from envsnap.diff import diff_documents
from envsnap.manifest.effective import CPU_OPS, op_precision
from tests.unit.diff.test_cpu_precision import KERNELS, _cpu_job_pair

ADVISORY = "ENVSNAP-2025-0005"  # fp32 matmuls on CPU in bf16 mode (oneDNN)


def _bf16_pair(cpu: dict[str, Any] | None = KERNELS) -> tuple[dict[str, Any], dict[str, Any]]:
    """A CPU job on torch 2.9 (the advisory's range) whose B sets mkldnn matmul to bf16."""
    a, b = _cpu_job_pair()
    for doc in (a, b):
        doc["torch"]["version"] = "2.9.0+cpu"
        doc["packages"]["installed"]["torch"]["version"] = "2.9.0+cpu"
        doc["torch"]["cpu"] = None if cpu is None else dict(cpu)
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    return a, b


def _verdict(doc: dict[str, Any]) -> Any:
    return next((f for f in audit_document(doc, load()) if f.id == ADVISORY), None)


def _cpu_finding(a: dict[str, Any], b: dict[str, Any]) -> Any:
    return next(f for f in diff_documents(a, b).findings if f.rule == "precision.cpu-fp32")


def test_the_cpu_fp32_facts_are_op_precision() -> None:
    _, b = _bf16_pair()
    for op in CPU_OPS:
        assert resolver(f"run:cpu-{op}-fp32")(b) == (op_precision(b, "cpu", op).precision,)
    b["torch"]["cpu"], b["torch"]["cpu_capability"] = None, None
    assert op_precision(b, "cpu", "matmul").precision is None
    assert resolver("run:cpu-matmul-fp32")(b) is None  # unknown, not ieee


def test_a_bf16_setting_the_cpu_runs_is_affected_as_the_differ_finds_it_high() -> None:
    a, b = _bf16_pair()
    assert op_precision(b, "cpu", "matmul").precision == "bf16"
    found = _verdict(b)
    assert found is not None and (found.status, found.severity) == ("affected", "high")
    matched = {fact.fact: fact.values for fact in found.facts}
    assert matched["run:cpu-matmul-fp32"] == ["bf16"]
    assert _verdict(a) is None
    assert _cpu_finding(a, b).severity == "high"


def test_a_bf16_setting_the_cpu_has_no_kernels_for_is_not_an_advisory_hit() -> None:
    a, b = _bf16_pair({**KERNELS, "bf16": False, "features": []})
    answer = op_precision(b, "cpu", "matmul")
    assert (answer.requested, answer.precision) == ("bf16", "ieee")
    assert _verdict(b) is None
    # The differ agrees: the setting differs, the math does not (a low finding).
    assert _cpu_finding(a, b).severity == "low"


def test_a_bf16_setting_on_a_cpu_of_unrecorded_kernels_may_apply() -> None:
    _, b = _bf16_pair(None)
    b["torch"]["cpu_capability"] = None
    assert op_precision(b, "cpu", "matmul").precision is None
    found = _verdict(b)
    assert found is not None and found.status == "possible"


def test_a_bf16_setting_with_onednn_switched_off_is_not_an_advisory_hit() -> None:
    _, b = _bf16_pair({**KERNELS, "mkldnn_enabled": False})
    assert op_precision(b, "cpu", "matmul").precision == "ieee"
    assert _verdict(b) is None
    b["torch"]["cpu"]["mkldnn_enabled"] = True
    assert _verdict(b) is not None
