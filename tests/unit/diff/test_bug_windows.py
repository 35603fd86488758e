"""Known bug windows under partial facts: a side in the version range whose other condition
(the GPU) is not recorded is inferred to be in the window, and says so."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair

RULE = "bug.torch-2.5.0-cudnn-sdpa-h100"


def _pair(gpu_b: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A on torch 2.5.1, B on 2.5.0; B's GPUs at compute capability `gpu_b`, or unrecorded."""
    a, b = full_pair()
    a["packages"]["installed"]["torch"]["version"] = "2.5.1"
    b["packages"]["installed"]["torch"]["version"] = "2.5.0"
    for device in b["gpu"]["devices"].values():
        device["compute_capability"] = gpu_b
    return a, b


def _window(report: Any) -> Any:
    """The finding the window is behind: the torch release's, whose step enters it."""
    return next((f for f in report.findings if RULE in f.rules), None)


def test_a_recorded_hopper_gpu_on_torch_2_5_0_is_a_stated_window() -> None:
    finding = _window(diff_documents(*_pair("9.0")))
    assert finding is not None and finding.basis == "stated" and finding.rank == 1
    assert finding.rule == "stack.torch" and "through it: torch 2.5.0 on an H100" in finding.title


def test_an_unrecorded_gpu_on_torch_2_5_0_is_an_inferred_latent_window() -> None:
    report = diff_documents(*_pair(None))
    finding = _window(report)
    assert finding is not None and finding.rule == "stack.torch"
    assert "if B's unrecorded conditions hold" in finding.title
    # The release step is stated; what it is inferred to enter is said on its evidence.
    assert any(e.inferred and "not recorded" in e.inferred for e in finding.evidence)


def test_a_recorded_gpu_of_another_architecture_is_outside_the_window() -> None:
    assert _window(diff_documents(*_pair("8.0"))) is None


def test_a_window_the_gpu_moved_into_stays_its_own_finding() -> None:
    # Both on torch 2.5.0: no release step to join, the GPU moved B into the window.
    a, b = _pair("9.0")
    a["packages"]["installed"]["torch"]["version"] = "2.5.0"
    for device in a["gpu"]["devices"].values():
        device["compute_capability"] = "8.0"
    finding = _window(diff_documents(a, b))
    assert finding is not None and finding.rule == RULE
