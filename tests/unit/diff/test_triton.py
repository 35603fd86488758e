"""Triton is a wheel of its own: beside a torch release it keeps its own finding, first."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _bump(doc: dict[str, Any], name: str, version: str) -> None:
    doc["packages"]["installed"][name]["version"] = version


def _by_rule(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[int, str, str]]:
    findings = diff_documents(a, b, target="close").findings
    return {f.rule: (f.rank, f.severity, f.title) for f in reversed(findings)}


def test_a_triton_change_beside_a_torch_release_is_its_own_finding_ranked_first() -> None:
    a, b = full_pair()
    _bump(b, "torch", "2.4.0+cu121")
    _bump(b, "triton", "3.0.0")
    found = _by_rule(a, b)
    triton_rank, triton_severity, triton_title = found["stack.triton"]
    torch_rank, torch_severity, torch_title = found["stack.torch"]
    assert triton_title == "Triton compiler changed: 2.3.1 → 3.0.0"
    assert "triton" not in torch_title  # one finding per cause, not "with it: triton"
    # Equal severity: the narrower, separately installable cause comes first, as a cuDNN wheel.
    assert triton_severity == torch_severity == "medium"
    assert triton_rank < torch_rank


def test_a_triton_change_alone_is_titled_as_the_compiler() -> None:
    a, b = full_pair()
    _bump(b, "triton", "2.3.0")
    rank, severity, title = _by_rule(a, b)["stack.triton"]
    assert (rank, severity) == (1, "medium")
    assert title == "Triton compiler changed: 2.3.1 → 2.3.0"


def test_a_triton_change_is_info_where_neither_job_ran_on_a_gpu() -> None:
    a, b = full_pair()
    for side in (a, b):
        side["precision"]["device"] = "cpu"
    _bump(b, "triton", "3.0.0")
    assert _by_rule(a, b)["stack.triton"][1] == "info"
