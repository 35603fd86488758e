"""Ranking cases that once came out wrong: each pins the behaviour numerics.md asks for."""

from __future__ import annotations

import copy
import json
from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.report import SEVERITY_RANK, Report
from tests.conftest import FIXTURES

FULL: dict[str, Any] = json.loads((FIXTURES / "manifests" / "full.json").read_text())


def _pair() -> tuple[dict[str, Any], dict[str, Any]]:
    return copy.deepcopy(FULL), copy.deepcopy(FULL)


def _as_volta(doc: dict[str, Any]) -> None:
    """Turn every GPU of a document into a V100 (compute capability 7.0: no TF32, no bf16)."""
    for device in doc["gpu"]["devices"].values():
        device.update(name="Tesla V100-SXM2-32GB", compute_capability="7.0", arch="Volta")
        device["capabilities"] = {"bf16": False, "flash_sdpa": False, "fp8": False, "tf32": False}


def _above_info(report: Report) -> list[str]:
    return [
        f"{f.severity} {f.rule} {f.path}"
        for f in report.findings
        if SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"]
    ]


def test_relocated_data_with_same_content_is_noise() -> None:
    a, b = _pair()
    for item in b["data"]["items"].values():
        item["resolved"] = "/scratch/elsewhere/train"
        for entry in item["files"].values():
            entry["mtime_ns"] = 1_700_000_000_000_000_000
    assert _above_info(diff_documents(a, b)) == []


def test_fewer_gpus_of_the_same_architecture_is_not_an_architecture_change() -> None:
    a, b = _pair()
    del b["gpu"]["devices"]["1"]
    b["gpu"]["device_count"] = 1
    rules = {f.rule for f in diff_documents(a, b).findings}
    assert "precision.tf32-arch" not in rules


def test_inserting_a_submodule_is_one_addition_not_a_shift() -> None:
    a, b = _pair()
    a["code"]["submodules"] = [{"path": "vendor/x", "commit": "1" * 40, "state": "clean"}]
    b["code"]["submodules"] = [
        {"path": "vendor/a", "commit": "2" * 40, "state": "clean"},
        {"path": "vendor/x", "commit": "1" * 40, "state": "clean"},
    ]
    paths = {f.path for f in diff_documents(a, b).findings if f.path.startswith("code.submodules")}
    assert paths == {"code.submodules.vendor/a"}


def test_release_candidates_cross_default_flips() -> None:
    a, b = _pair()
    b["packages"]["installed"]["numpy"]["version"] = "2.0.0rc1"
    rules = {f.rule for f in diff_documents(a, b).findings}
    assert "flip.numpy-2.0-nep50" in rules


def test_architecture_change_without_torch_section_still_flags_tf32() -> None:
    """cuDNN TF32 is on by default, so unknown torch flags on an Ampere GPU may run TF32."""
    a, b = _pair()
    a["torch"] = None
    b["torch"] = None
    _as_volta(b)
    report = diff_documents(a, b)
    assert "precision.tf32-arch" in {f.rule for f in report.findings}
    assert report.findings[0].severity in ("critical", "high")


def test_losing_every_gpu_ranks_like_a_hardware_change() -> None:
    a, b = _pair()
    b["gpu"]["devices"] = {}
    b["gpu"]["device_count"] = 0
    report = diff_documents(a, b)
    top = report.findings[0]
    assert top.path.startswith("gpu.devices")
    assert SEVERITY_RANK[top.severity] >= SEVERITY_RANK["medium"]


def test_tf32_default_flip_is_moot_on_gpus_without_tf32() -> None:
    """torch 1.11 -> 1.12 turned matmul TF32 off by default; a V100 never ran TF32 anyway."""
    a, b = _pair()
    for doc in (a, b):
        _as_volta(doc)
    a["packages"]["installed"]["torch"]["version"] = "1.11.0+cu113"
    b["packages"]["installed"]["torch"]["version"] = "1.12.0+cu113"
    severities = {f.rule: f.severity for f in diff_documents(a, b).findings}
    assert severities["flip.torch-1.12-tf32"] == "low"
    # On the Ampere GPUs of the fixture the same flip stays high.
    a2, b2 = _pair()
    a2["packages"]["installed"]["torch"]["version"] = "1.11.0+cu113"
    b2["packages"]["installed"]["torch"]["version"] = "1.12.0+cu113"
    severities = {f.rule: f.severity for f in diff_documents(a2, b2).findings}
    assert severities["flip.torch-1.12-tf32"] == "high"


def test_a_nested_field_one_side_could_not_read_is_uncaptured_not_changed() -> None:
    a, b = _pair()
    b["torch"]["cudnn"]["allow_tf32"] = None
    b["torch"]["unknown"] = {"cudnn.allow_tf32": "torch refused to report it"}
    found = {f.path: f for f in diff_documents(a, b).findings}
    finding = found["torch.cudnn.allow_tf32"]
    assert finding.rule == "uncaptured"
    assert "torch refused to report it" in finding.title


def test_tf32_flag_change_on_gpus_without_tf32_ranks_low() -> None:
    a, b = _pair()
    for doc in (a, b):
        _as_volta(doc)
    b["torch"]["matmul"]["allow_tf32"] = not a["torch"]["matmul"]["allow_tf32"]
    severities = {f.rule: f.severity for f in diff_documents(a, b).findings}
    assert severities["precision.tf32-matmul"] == "low"
