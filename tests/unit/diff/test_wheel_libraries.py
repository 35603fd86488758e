"""The libraries an official torch wheel ships, inferred where a record does not state them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.wheel_libraries import BUILDS, same_release, version_text, wheel_build
from envsnap.interop.importers import load_any
from tests.helpers import FIXTURES

# A real 2024 report (torch 2.2.2+cu121 on an L4), the base of the cuDNN pairs below.
L4 = FIXTURES / "collect_env" / "16_paste_markdown_fence_details.txt"
REAL_1_7 = FIXTURES / "collect_env" / "real" / "pytorch-60367_rtx2070s.txt"


def _imported(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    return load_any(str(path)).to_document()


def _l4(cudnn_line: str, *pip: str, torch: str = "2.2.2+cu121") -> str:
    text = L4.read_text(encoding="utf-8").replace("2.2.2+cu121", torch)
    text = text.replace("cuDNN version: Could not collect", f"cuDNN version: {cudnn_line}")
    extra = "".join(f"[pip3] {line}\n" for line in pip)
    return text.replace("[pip3] numpy==1.26.4\n", f"[pip3] numpy==1.26.4\n{extra}")


def _cudnn_findings(a: dict[str, Any], b: dict[str, Any]) -> list[Any]:
    """The findings a cuDNN change is behind: its own, or the torch wheel's that ships it."""
    return [f for f in diff_documents(a, b).findings if "stack.cudnn" in f.rules]


def _cudnn_evidence(finding: Any) -> Any:
    (evidence,) = [e for e in finding.evidence if e.path == "cuda_stack.libraries.cudnn.version"]
    return evidence


# --- the table -----------------------------------------------------------------------------
def test_every_row_is_sourced_and_unsourced_values_are_unknown() -> None:
    for build in BUILDS:
        assert re.fullmatch(r"cu\d{2,3}", build.tag), build
        assert build.source.startswith(("https://pypi.org/project/torch/", "pytorch/builder")), (
            build
        )
    # NCCL of the builds that bundle it from torch's submodule is not stated by any source.
    assert wheel_build("1.10.2+cu113") is not None
    assert wheel_build("1.10.2+cu113").nccl is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("version", "cuda", "cudnn"),
    [
        ("1.7.0+cu110", None, "8.0.4.30"),  # pytorch/pytorch#60367 reports 8004 for this build
        ("1.7.1+cu110", None, "8.0.5.39"),
        ("1.8.1+cu111", None, "8.0.5.39"),
        ("1.9.0+cu111", None, "8.0.5.39"),
        ("1.10.0+cu113", None, "8.2.0.53"),
        ("2.1.2", "12.1", "8.9.2.26"),  # PyPI's wheel, no local tag
        ("2.4.0+cu121", None, "9.1.0.70"),
        ("2.13.0", "13.0", "9.20.0.48"),
    ],
)
def test_wheel_builds(version: str, cuda: str | None, cudnn: str) -> None:
    build = wheel_build(version, cuda)
    assert build is not None and build.cudnn == cudnn


@pytest.mark.parametrize(
    ("version", "cuda"),
    [
        ("1.8.0a0+13decdd", "11.1"),  # a source build
        ("2.5.0a0+b465a5843b.nv24.09", "12.6"),  # NGC
        ("2.6.0.dev20241001+cu124", None),  # a nightly
        ("2.1.2", "11.8"),  # PyPI's 2.1 wheel is cu121: a plain 2.1.2 on 11.8 is not it
        ("2.1.2", None),
        ("2.6.0+cu126", None),  # no source states it: unknown, not guessed
        ("2.3.0+cpu", None),
    ],
)
def test_builds_that_are_not_known_official_wheels(version: str, cuda: str | None) -> None:
    assert wheel_build(version, cuda) is None


def test_versions_compare_at_the_precision_both_state() -> None:
    assert same_release("8.9.2", "8.9.2.26") and same_release("9.1.0.70", "9.1")
    assert not same_release("8.9.2.26", "8.7.0.84")
    assert version_text(8902) == "8.9.2" and version_text(90100) == "9.1.0"


# --- the differ ----------------------------------------------------------------------------
def _real_1_7(torch: str, cuda: str) -> str:
    text = REAL_1_7.read_text(encoding="utf-8")
    return text.replace("1.7.0+cu110", torch).replace("PyTorch: 11.0", f"PyTorch: {cuda}")


def test_inferred_cudnn_change_names_both_versions(tmp_path: Path) -> None:
    a = _imported(tmp_path, "a", _real_1_7("1.8.1+cu111", "11.1"))
    b = _imported(tmp_path, "b", _real_1_7("1.10.0+cu113", "11.3"))
    (wheel,) = _cudnn_findings(a, b)
    # The wheel is one cause: the cuDNN it ships is a way the torch release acts.
    assert wheel.rule == "stack.torch" and wheel.basis == "stated"
    assert "through it: CUDA variant cu111 → cu113; cuDNN 8.0.5.39 → 8.2.0.53" in wheel.title
    evidence = _cudnn_evidence(wheel)
    assert (evidence.a, evidence.b) == ("8.0.5.39", "8.2.0.53")
    assert evidence.inferred and "release/1.10" in evidence.inferred
    assert [f.rule for f in diff_documents(a, b).findings].count("stack.cuda-toolkit") == 0


def test_inferred_cudnn_of_a_variant_change_joins_the_variant(tmp_path: Path) -> None:
    a = _imported(tmp_path, "a", _real_1_7("1.8.1+cu102", "10.2"))
    b = _imported(tmp_path, "b", _real_1_7("1.8.1+cu111", "11.1"))
    (variant,) = _cudnn_findings(a, b)
    assert variant.rule == "stack.cuda-build"
    assert "through it: cuDNN 7.6.5.32 → 8.0.5.39" in variant.title


def test_same_bundled_cudnn_is_no_change(tmp_path: Path) -> None:
    # 1.8.1 and 1.9.0 cu111 wheels were both built with cuDNN 8.0.5 (pytorch/builder).
    a = _imported(tmp_path, "a", _real_1_7("1.8.1+cu111", "11.1"))
    b = _imported(tmp_path, "b", _real_1_7("1.9.0+cu111", "11.1"))
    assert _cudnn_findings(a, b) == []


def test_pinned_wheel_versus_the_same_version_as_a_system_file_is_no_change(
    tmp_path: Path,
) -> None:
    listed = _imported(tmp_path, "a", _l4("Could not collect", "nvidia-cudnn-cu12==8.9.2.26"))
    system = _imported(tmp_path, "b", _l4("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2"))
    assert listed["cuda_stack"]["libraries"]["cudnn"]["version"] == "8.9.2.26"
    # torch 2.2.2's wheel loads the nvidia-cudnn it pins, not the system file.
    assert system["cuda_stack"]["libraries"]["cudnn"]["version"] is None
    assert _cudnn_findings(listed, system) == []


def test_a_real_cudnn_difference_still_is_one(tmp_path: Path) -> None:
    listed = _imported(tmp_path, "a", _l4("Could not collect", "nvidia-cudnn-cu12==8.9.2.26"))
    # A source build links the system cuDNN: the file it lists is the one it loads.
    source = _imported(
        tmp_path,
        "b",
        _l4("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.7.0", torch="2.2.0a0+git8ac9b20"),
    )
    (cudnn,) = _cudnn_findings(listed, source)
    assert (cudnn.a, cudnn.b, cudnn.basis) == ("8.9.2.26", "8.7.0", "stated")
    # And a wheel whose pin differs from a listed wheel's is an inferred change.
    newer = _imported(tmp_path, "c", _l4("Could not collect", torch="2.4.0+cu121"))
    (pinned,) = _cudnn_findings(listed, newer)
    assert pinned.rule == "stack.torch"
    evidence = _cudnn_evidence(pinned)
    assert (evidence.a, evidence.b) == ("8.9.2.26", "9.1.0.70") and evidence.inferred


MI250 = FIXTURES / "collect_env" / "10_2024_torch2.4_rocm_mi250.txt"


def _rocm(version: str, rocm: str, hip: str, miopen: str) -> str:
    text = MI250.read_text(encoding="utf-8").replace("2.4.0+rocm6.0", f"{version}+rocm{rocm}")
    text = text.replace("6.0.32830-d62f6a171", f"{hip}-0").replace("6.0.32830", hip)
    return text.replace("MIOpen runtime version: 3.0.0", f"MIOpen runtime version: {miopen}")


def test_a_rocm_builds_hip_and_miopen_join_the_torch_release_they_come_with(
    tmp_path: Path,
) -> None:
    # collect_env reads HIP and MIOpen from torch's build configuration: they move with it.
    a = _imported(tmp_path, "a", _rocm("2.4.0", "6.0", "6.0.32830", "3.0.0"))
    b = _imported(tmp_path, "b", _rocm("2.5.1", "6.2", "6.2.41133", "3.2.0"))
    findings = [f for f in diff_documents(a, b).findings if f.severity != "info"]
    torch = findings[0]
    assert torch.rule == "stack.torch"
    assert "ROCm variant rocm6.0 → rocm6.2" in torch.title
    assert "MIOpen 3.0.0 → 3.2.0" in torch.title
    assert not [f for f in findings[1:] if f.rule == "stack.cuda-library"]


def test_a_rocm_library_changed_alone_names_the_library(tmp_path: Path) -> None:
    a = _imported(tmp_path, "a", _rocm("2.5.1", "6.2", "6.2.41133", "3.0.0"))
    b = _imported(tmp_path, "b", _rocm("2.5.1", "6.2", "6.2.41133", "3.2.0"))
    (library,) = [f for f in diff_documents(a, b).findings if f.rule == "stack.cuda-library"]
    assert library.title == "CUDA or ROCm library changed: miopen 3.0.0 → 3.2.0"
