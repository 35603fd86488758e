"""A torch-family companion released under one and the same torch changes preprocessing."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair, install


def _finding_at(a: dict[str, Any], b: dict[str, Any], path: str) -> tuple[int, str, str, str]:
    finding = next(
        f
        for f in diff_documents(a, b, target="close").findings
        if f.path == path or any(e.path == path for e in f.evidence)
    )
    return finding.rank, finding.rule, finding.severity, finding.title


def _torch_only_in_cuda_stack(a: dict[str, Any], b: dict[str, Any], version: str | None) -> None:
    """Both sides state torch's version, if at all, only among their CUDA-stack facts."""
    for doc in (a, b):
        del doc["packages"]["installed"]["torch"]
        doc["torch"]["version"] = None
        doc["cuda_stack"]["torch_version"] = version


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("torchvision", "0.2.0", "0.2.1"),
        ("torchaudio", "2.0.2", "2.1.0"),
        ("torchcodec", "0.4.0", "0.5.0"),
    ],
)
def test_a_companion_bumped_under_one_torch_is_a_preprocessing_change(
    name: str, old: str, new: str
) -> None:
    a, b = full_pair()
    install(a, name, old)
    install(b, name, new)
    rank, rule, severity, title = _finding_at(a, b, f"packages.installed.{name}.version")
    assert (rank, rule, severity) == (1, "stack.preprocessing", "high")
    assert f"{name} {old} → {new}" in title and "the same torch on both sides" in title


def test_a_companion_bumped_with_torch_stays_in_the_torch_finding() -> None:
    a, b = full_pair()
    install(a, "torchvision", "0.18.1")
    install(b, "torchvision", "0.19.0")
    b["packages"]["installed"]["torch"]["version"] = "2.4.0"
    findings = diff_documents(a, b, target="close").findings
    assert not [f for f in findings if f.rule == "stack.preprocessing"]
    title = next(f.title for f in findings if f.rule == "stack.torch")
    assert "with it: torchvision 0.18.1 → 0.19.0" in title


def test_a_companion_beside_an_unknown_torch_stays_in_the_torch_family() -> None:
    # Without torch's version on both sides nothing says the kernels stayed the same.
    a, b = full_pair()
    install(a, "torchvision", "0.2.0")
    install(b, "torchvision", "0.2.1")
    _torch_only_in_cuda_stack(a, b, None)
    rules = {f.rule for f in diff_documents(a, b, target="close").findings}
    assert "stack.torch" in rules
    assert "stack.preprocessing" not in rules


def test_torch_stated_only_as_cuda_stack_facts_is_still_one_torch() -> None:
    # An import may state torch only where it read the CUDA stack.
    a, b = full_pair()
    install(a, "torchvision", "0.18.0")
    install(b, "torchvision", "0.19.0")
    _torch_only_in_cuda_stack(a, b, "2.4.0+cu121")
    rules = {f.rule for f in diff_documents(a, b, target="close").findings}
    assert "stack.preprocessing" in rules


def test_a_companion_beside_another_torch_build_stays_in_the_torch_family() -> None:
    # 2.4.0+cu121 against 2.4.0+cu118: the release is one, the build (and its kernels) is not.
    a, b = full_pair()
    install(a, "torchvision", "0.19.0")
    install(b, "torchvision", "0.19.1")
    a["packages"]["installed"]["torch"]["version"] = "2.4.0+cu121"
    b["packages"]["installed"]["torch"]["version"] = "2.4.0+cu118"
    rules = {f.rule for f in diff_documents(a, b, target="close").findings}
    assert "stack.preprocessing" not in rules
