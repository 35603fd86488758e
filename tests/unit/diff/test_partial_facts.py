"""Differ v3 on imported records, which state versions and GPU names but no runtime flags: what
they do not state is inferred (release defaults, the GPU table), ranked as likely, and marked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.device import default_tf32, effective_tf32, job_device
from envsnap.diff.report import Finding, Report
from envsnap.interop.importers import load_any
from tests.helpers import FIXTURES

# A report posted in pytorch/pytorch#60367, in the format collect_env printed for torch 1.7-1.8.
REAL_1_7 = FIXTURES / "collect_env" / "real" / "pytorch-60367_rtx2070s.txt"


def _report(tmp_path: Path, name: str, torch: str, cuda: str, *gpus: str) -> dict[str, Any]:
    """The real report with another torch build and other GPUs, imported as a document."""
    text = REAL_1_7.read_text(encoding="utf-8")
    text = text.replace("1.7.0+cu110", torch).replace("PyTorch: 11.0", f"PyTorch: {cuda}")
    listed = "".join(f"GPU {index}: {gpu}\n" for index, gpu in enumerate(gpus))
    text = re.sub(r"(GPU \d+: .*\n)+", listed, text)
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    return load_any(str(path)).to_document()


def _rules(report: Report) -> list[str]:
    return [finding.rule for finding in report.findings]


def _finding(report: Report, rule: str) -> Finding:
    """The finding `rule` is behind: its own, or the cause's it is a way of (Finding.rules)."""
    return next(f for f in report.findings if f.rule == rule or rule in f.rules)


# --- TF32 from the release defaults --------------------------------------------------------
@pytest.mark.parametrize(
    ("version", "family", "expected"),
    [
        ("1.6.0", "matmul", "no"),  # no TF32 before 1.7
        ("1.6.0", "conv", "no"),
        ("1.7.1+cu110", "matmul", "yes"),
        ("1.11.0+cu113", "matmul", "yes"),
        ("1.12.0+cu116", "matmul", "no"),  # pytorch/pytorch#76509
        ("1.12.0+cu116", "conv", "yes"),
        ("2.13.0", "conv", "yes"),
        (None, "matmul", "unknown"),
    ],
)
def test_tf32_release_defaults(version: str | None, family: str, expected: str) -> None:
    assert default_tf32(version, family) == expected


def test_tf32_is_the_first_way_the_gpu_change_acts_on_an_imported_pair(tmp_path: Path) -> None:
    ampere = _report(tmp_path, "a", "1.8.1+cu111", "11.1", "NVIDIA GeForce RTX 3090")
    pascal = _report(tmp_path, "b", "1.8.1+cu111", "11.1", "NVIDIA GeForce GTX 1080 Ti")
    # The GPU table gives the architectures; torch 1.8's defaults give TF32 on the RTX 3090.
    assert effective_tf32(ampere, "matmul") == effective_tf32(ampere, "conv") == "yes"
    assert effective_tf32(pascal, "matmul") == "no"
    report = diff_documents(ampere, pascal)
    top = report.findings[0]
    # One cause, the GPU; the named mechanism leads the ways it acts, before the random streams
    # and the kernels (evidence, not rows of their own).
    assert top.rule == "hw.gpu" and _finding(report, "precision.tf32-effective") is top
    assert "hw.gpu-kernels" not in _rules(report)
    through = top.title.split("; through it: ", 1)[1]
    assert through.startswith("fp32 matmuls run as TF32 on A only")
    assert through.index("TF32") < through.index("seeded CUDA random streams")
    assert report.summary.verdict.startswith("most likely cause (close): GPU changed")
    assert top.severity == "high"
    # Likely, not shown: the evidence says what the TF32 state rests on.
    inferred = [e.inferred for e in top.evidence if e.path.startswith("torch.effective.")]
    assert inferred and inferred[0] and "torch 1.8.1+cu111 defaults" in inferred[0]
    assert "pytorch/pytorch#76509" in inferred[0] and "no TF32" in inferred[0]


def test_tf32_on_torch_1_12_defaults_is_conv_only(tmp_path: Path) -> None:
    ampere = _report(tmp_path, "a", "1.12.1+cu116", "11.6", "NVIDIA A100-SXM4-40GB")
    volta = _report(tmp_path, "b", "1.12.1+cu116", "11.6", "Tesla V100-SXM2-16GB")
    tf32 = _finding(diff_documents(ampere, volta), "precision.tf32-effective")
    assert "fp32 convolutions run as TF32 on A only" in tf32.title
    assert "matmuls run as TF32" not in tf32.title
    effective = [e.path for e in tf32.evidence if e.path.startswith("torch.effective.")]
    assert effective == ["torch.effective.conv_fp32.tf32"]


# --- the GPU table for any imported GPU name ------------------------------------------------
def test_seeded_rng_streams_differ_between_a100_and_h100_inferred(tmp_path: Path) -> None:
    a100 = _report(tmp_path, "a", "2.1.0+cu121", "12.1", "NVIDIA A100-SXM4-80GB")
    h100 = _report(tmp_path, "b", "2.1.0+cu121", "12.1", "NVIDIA H100 80GB HBM3")
    assert a100["seeds"] is None and h100["seeds"] is None  # a report states no seeding
    assert [a100["gpu"]["devices"]["0"]["sm_count"], h100["gpu"]["devices"]["0"]["sm_count"]] == [
        108,
        132,
    ]
    rng = _finding(diff_documents(a100, h100), "randomness.cuda-rng-sm-count")
    assert rng.rule == "hw.gpu"  # a way the GPU change acts
    assert "through it: seeded CUDA random streams differ: 108 → 132 SMs" in rng.title
    (evidence,) = [e for e in rng.evidence if e.path == "gpu.devices.0.sm_count"]
    assert evidence.inferred is not None
    assert "GPU table" in evidence.inferred and "seeded" in evidence.inferred


def test_seeded_rng_finding_is_stated_between_seeded_captures() -> None:
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    b["gpu"]["devices"]["0"]["sm_count"] = a["gpu"]["devices"]["0"]["sm_count"] + 10
    rng = _finding(diff_documents(a, b), "randomness.cuda-rng-sm-count")
    assert rng.basis == "stated" and all(e.inferred is None for e in rng.evidence)


def test_amd_gpu_is_named_by_its_llvm_target_not_sm(tmp_path: Path) -> None:
    mi250 = load_any(str(FIXTURES / "collect_env" / "10_2024_torch2.4_rocm_mi250.txt"))
    mi300 = tmp_path / "mi300.txt"
    text = (FIXTURES / "collect_env" / "10_2024_torch2.4_rocm_mi250.txt").read_text()
    mi300.write_text(
        text.replace("AMD Instinct MI250X / MI250 (gfx90a", "AMD Instinct MI300X (gfx942"),
        encoding="utf-8",
    )
    report = diff_documents(mi250.to_document(), load_any(str(mi300)).to_document())
    gpu = _finding(report, "hw.gpu")
    assert "sm_?" not in gpu.title
    assert gpu.title.startswith(
        "GPU changed: 1× AMD Instinct MI250X / MI250 (gfx90a) → 1× AMD Instinct MI300X "
        "(gfx942, 304 CUs); through it: "
    )
    # The kernels the new target runs are that finding's evidence.
    kernels = [e for e in gpu.evidence if e.path == "gpu.devices.0.arch"]
    assert [(e.a, e.b) for e in kernels] == [("gfx90a", "gfx942")]


# --- where the job ran ----------------------------------------------------------------------
def test_imported_report_without_cuda_ran_on_the_cpu() -> None:
    report = FIXTURES / "collect_env" / "02_2019_torch1.1_cpu_pip_yes_no.txt"
    assert "Is CUDA available: No" in report.read_text(encoding="utf-8")
    assert job_device(load_any(str(report)).to_document()) == "cpu"
