"""Ranking: every change gets the severity numerics.md asks for."""

from __future__ import annotations

from envsnap.diff import diff_documents
from envsnap.diff.report import SEVERITY_RANK
from tests.helpers.manifests import above_info, full_pair


def test_relocated_data_with_same_content_is_noise() -> None:
    a, b = full_pair()
    for item in b["data"]["items"].values():
        item["resolved"] = "/scratch/elsewhere/train"
        for entry in item["files"].values():
            entry["mtime_ns"] = 1_700_000_000_000_000_000
    assert above_info(diff_documents(a, b)) == []


def test_losing_every_gpu_ranks_like_a_hardware_change() -> None:
    a, b = full_pair()
    b["gpu"]["devices"] = {}
    b["gpu"]["device_count"] = 0
    report = diff_documents(a, b)
    top = report.findings[0]
    assert top.path.startswith("gpu.devices")
    assert SEVERITY_RANK[top.severity] >= SEVERITY_RANK["medium"]


def test_a_nested_field_one_side_could_not_read_is_uncaptured_not_changed() -> None:
    a, b = full_pair()
    b["torch"]["cudnn"]["allow_tf32"] = None
    b["torch"]["unknown"] = {"cudnn.allow_tf32": "torch refused to report it"}
    found = {f.path: f for f in diff_documents(a, b).findings}
    finding = found["torch.cudnn.allow_tf32"]
    assert finding.rule == "uncaptured"
    assert "torch refused to report it" in finding.title
