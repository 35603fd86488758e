"""`envsnap show` states what fp32 math runs as on the CPU: `op_precision`, the fact the differ
reads, so a bf16 setting the CPU has no kernels for is shown running as ieee, with why."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.manifest.effective import op_precision
from envsnap.manifest.model import manifest_from_document
from envsnap.render.summary import render_summary, section_rows
from tests.unit.diff.test_cpu_precision import KERNELS, _cpu_job_pair


def _torch_row(doc: dict[str, Any]) -> str:
    rows = section_rows(manifest_from_document(doc, "m.json"), ["torch"])
    return next(summary for name, _, summary in rows if name == "torch")


def _bf16_pair(kernels: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = _cpu_job_pair()
    if not kernels:
        for doc in (a, b):
            doc["torch"]["cpu"] = {**KERNELS, "bf16": False, "features": []}
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    return a, b


def test_show_states_bf16_matmul_on_a_cpu_with_bf16_kernels() -> None:
    a, b = _bf16_pair(kernels=True)
    answer = op_precision(b, "cpu", "matmul")
    assert answer.precision == "bf16"  # the differ's fact: a high precision finding
    row = _torch_row(b)
    assert f"fp32 on cpu: matmul {answer.precision} ({answer.backend})," in row
    assert "matmul ieee (mkldnn)," in _torch_row(a)
    conv = op_precision(b, "cpu", "conv")
    assert f"conv {conv.precision} ({conv.backend})" in row
    finding = diff_documents(a, b).findings[0]
    assert (finding.rule, finding.severity) == ("precision.cpu-fp32", "high")


def test_show_says_a_bf16_setting_without_kernels_runs_as_ieee_and_why() -> None:
    a, b = _bf16_pair(kernels=False)
    answer = op_precision(b, "cpu", "matmul")
    assert (answer.requested, answer.precision) == ("bf16", "ieee")
    row = _torch_row(b)
    assert f"matmul ieee (mkldnn) [{answer.reason}]" in row
    assert "no bf16 kernels" in answer.reason
    assert "matmul bf16" not in row
    # The differ agrees: the setting differs, the math does not.
    finding = next(f for f in diff_documents(a, b).findings if f.rule == "precision.cpu-fp32")
    assert finding.severity == "low"


def test_show_names_what_it_cannot_tell_and_an_rnn_setting() -> None:
    _, b = _bf16_pair(kernels=True)
    b["torch"]["cpu"] = None
    b["torch"]["cpu_capability"] = None
    b["torch"]["fp32_precision"]["mkldnn.rnn"] = "bf16"
    unknown = op_precision(b, "cpu", "matmul")
    assert unknown.precision is None
    row = _torch_row(b)
    assert f"matmul ? [{unknown.reason}]" in row
    assert f"rnn ? [{op_precision(b, 'cpu', 'rnn').reason}]" in row
    assert "fp32 on cpu:" in render_summary(manifest_from_document(b, "m.json"), color=False)
