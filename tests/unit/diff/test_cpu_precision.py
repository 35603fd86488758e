"""fp32 math on the CPU: one derived fact (`op_precision`) and the findings built on it."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.manifest.effective import cpu_precision, op_precision
from tests.helpers.manifests import full_pair
from tests.unit.capturing.collectors.test_torch_runtime import run_python

KERNELS = {"mkldnn_enabled": True, "bf16": True, "amx_fp16": False, "features": ["avx512_bf16"]}


def _torch(version: str = "2.13.0+cpu", **fields: Any) -> dict[str, Any]:
    section: dict[str, Any] = {"version": version, "cpu": dict(KERNELS), "build": {}}
    section.update(fields)
    return section


# --- the derived fact ------------------------------------------------------------------------
def test_a_leaf_set_to_bf16_runs_matmul_in_bf16_where_onednn_has_the_kernels() -> None:
    torch = _torch(fp32_precision={"mkldnn.matmul": "bf16", "mkldnn": "none", "generic": "none"})
    answer = cpu_precision(torch, "matmul")
    assert (answer.precision, answer.setting) == ("bf16", 'torch.fp32_precision["mkldnn.matmul"]')
    assert answer.inferred is None and answer.label() == "bf16 (mkldnn) on CPU"
    # Convolutions read their own leaf, then the mkldnn and generic levels: still ieee.
    assert cpu_precision(torch, "conv").precision == "ieee"


def test_the_mkldnn_level_is_inherited_by_every_leaf_left_at_none() -> None:
    levels = {"mkldnn.matmul": "none", "mkldnn.conv": "none", "mkldnn": "bf16", "generic": "none"}
    torch = _torch(fp32_precision=levels)
    assert [cpu_precision(torch, op).precision for op in ("matmul", "conv")] == ["bf16", "bf16"]


@pytest.mark.parametrize(
    ("version", "expected"), [("2.2.2", "ieee"), ("2.3.0", "bf16"), ("2.8.0", "bf16")]
)
def test_medium_matmul_precision_acts_on_the_cpu_from_torch_2_3(
    version: str, expected: str
) -> None:
    torch = _torch(version, matmul={"float32_matmul_precision": "medium"})
    assert cpu_precision(torch, "matmul").precision == expected


def test_bf16_is_asked_for_but_not_run_without_kernels_or_with_onednn_off() -> None:
    asked = {"fp32_precision": {"mkldnn.matmul": "bf16", "mkldnn": "none", "generic": "none"}}
    no_kernels = _torch(**asked, cpu={**KERNELS, "bf16": False, "features": []})
    assert cpu_precision(no_kernels, "matmul").precision == "ieee"
    switched_off = _torch(**asked, cpu={**KERNELS, "mkldnn_enabled": False})
    assert "mkldnn.enabled is False" in cpu_precision(switched_off, "matmul").reason
    assert cpu_precision(switched_off, "matmul").precision == "ieee"


def test_a_record_without_torch_checks_infers_the_kernels_from_isa_flags() -> None:
    torch = _torch(matmul={"float32_matmul_precision": "medium"}, cpu=None)
    inferred = cpu_precision(torch, "matmul", ["avx2", "avx512_bf16"])
    assert (inferred.precision, inferred.inferred) == ("bf16", "ISA flags")
    assert cpu_precision(torch, "matmul", ["avx2", "fma"]).precision is None


def test_op_precision_reads_a_whole_document_per_device() -> None:
    doc, _ = full_pair()
    assert op_precision(doc, "cuda", "matmul").backend == "cuBLAS"
    assert op_precision(doc, "cpu", "matmul").precision == "ieee"  # 'highest'
    assert op_precision({"torch": None}, "cpu", "conv").reason == "torch section not recorded"


# --- the findings ------------------------------------------------------------------------
def _cpu_job_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for doc in (a, b):
        doc["precision"]["device"] = "cpu"
        doc["torch"]["cpu"] = dict(KERNELS)
        doc["torch"]["fp32_precision"] = {
            "mkldnn.matmul": "none",
            "mkldnn": "none",
            "generic": "none",
        }
    return a, b


def _finding(report: Any, rule: str) -> Any:
    return next(f for f in report.findings if f.rule == rule)


def test_bf16_matmul_on_one_side_of_a_cpu_job_is_a_high_precision_finding() -> None:
    a, b = _cpu_job_pair()
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    report = diff_documents(a, b)
    finding = report.findings[0]
    assert (finding.rule, finding.severity, finding.category) == (
        "precision.cpu-fp32",
        "high",
        "precision",
    )
    assert "bf16 (mkldnn) on CPU in B" in finding.title


def test_the_same_setting_on_a_gpu_job_reaches_cpu_side_ops_only() -> None:
    a, b = _cpu_job_pair()
    for doc in (a, b):
        doc["precision"]["device"] = "cuda"
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    finding = _finding(diff_documents(a, b), "precision.cpu-fp32")
    assert finding.severity == "low" and "ran on CUDA" in finding.title
    bitwise = _finding(diff_documents(a, b, target="bitwise"), "precision.cpu-fp32")
    assert bitwise.severity == "medium"


def test_a_setting_the_cpu_has_no_kernels_for_is_low_and_says_so() -> None:
    a, b = _cpu_job_pair()
    for doc in (a, b):
        doc["torch"]["cpu"] = {**KERNELS, "bf16": False, "features": []}
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    finding = _finding(diff_documents(a, b), "precision.cpu-fp32")
    assert finding.severity == "low"
    assert "run as ieee (mkldnn) on CPU on both sides" in finding.title


def test_another_cpu_capability_on_a_cpu_job_is_a_kernel_finding() -> None:
    a, b = _cpu_job_pair()
    b["torch"]["cpu_capability"] = "AVX512"
    report = diff_documents(a, b)
    assert report.findings[0].rule == "hw.cpu-kernels"
    assert "AVX2 kernels in A and AVX512 in B" in report.findings[0].title


# --- the collector -------------------------------------------------------------------------
@pytest.mark.slow
def test_the_capture_records_torch_s_own_cpu_checks_and_the_effective_answer_follows() -> None:
    data = run_python(
        """
        import json, torch
        torch.backends.mkldnn.matmul.fp32_precision = "bf16"
        import envsnap
        m = envsnap.capture(only=["torch", "system"])
        print(json.dumps({"doc": m.model_dump(mode="json"),
                          "bf16": torch.ops.mkldnn._is_mkldnn_bf16_supported(),
                          "amx_fp16": torch.cpu._is_amx_fp16_supported(),
                          "enabled": torch.backends.mkldnn.enabled}))
        """
    )
    kernels = data["doc"]["torch"]["cpu"]
    assert kernels["bf16"] is data["bf16"] and kernels["amx_fp16"] is data["amx_fp16"]
    assert kernels["mkldnn_enabled"] is data["enabled"]
    assert kernels["features"] == sorted(kernels["features"])
    answer = op_precision(data["doc"], "cpu", "matmul")
    # This host's kernels decide; the answer follows torch's own check either way.
    assert answer.precision == ("bf16" if data["bf16"] and data["enabled"] else "ieee")
    assert op_precision(data["doc"], "cpu", "conv").precision == "ieee"
