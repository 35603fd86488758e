"""The system CUDA toolkit is the job's CUDA where no torch stands between them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from tests.helpers import FIXTURES
from tests.helpers.importers import imported_report

# A real 2023 report: torch 2.0.1+cu118 on eight A100s, nvcc 11.8.89 on the system.
REPORT = FIXTURES / "collect_env" / "07_2023_torch2.0_cpu_block_8xa100.txt"
# The lines collect_env prints N/A in where torch is not installed (TORCH_AVAILABLE False).
_TORCH_LINES = {
    "PyTorch version: 2.0.1+cu118": "PyTorch version: N/A",
    "Is debug build: False": "Is debug build: N/A",
    "CUDA used to build PyTorch: 11.8": "CUDA used to build PyTorch: N/A",
    "Is CUDA available: True": "Is CUDA available: N/A",
    "CUDA_MODULE_LOADING set to: LAZY": "CUDA_MODULE_LOADING set to: N/A",
    "Is XNNPACK available: True": "Is XNNPACK available: N/A",
}


def _report(tmp_path: Path, name: str, nvcc: str, *, torch: bool) -> dict[str, Any]:
    text = REPORT.read_text(encoding="utf-8").replace("11.8.89", nvcc)
    if not torch:
        for line, unavailable in _TORCH_LINES.items():
            assert line in text
            text = text.replace(line, unavailable)
        text = "\n".join(line for line in text.splitlines() if "torch" not in line) + "\n"
    return imported_report(tmp_path, name, text)


def test_without_torch_the_system_toolkit_change_is_the_cuda_toolkit_change(
    tmp_path: Path,
) -> None:
    a = _report(tmp_path, "a", "11.5.119", torch=False)
    b = _report(tmp_path, "b", "11.6.124", torch=False)
    report = diff_documents(a, b, target="close")
    top = report.findings[0]
    assert top.rule == "stack.cuda-toolkit"
    assert top.severity == "medium"
    assert top.basis == "stated"
    assert "11.5.119 → 11.6.124" in top.title
    # One finding for the toolkit: its path is not also listed as an install location.
    paths = [(f.rule, e.path) for f in report.findings for e in f.evidence]
    assert not [rule for rule, path in paths if "copies" in path and rule != top.rule]


def test_beside_torch_the_system_toolkit_stays_bookkeeping(tmp_path: Path) -> None:
    # torch loads the CUDA runtime its wheel carries; the system nvcc is a copy it never loads.
    a = _report(tmp_path, "a", "11.5.119", torch=True)
    b = _report(tmp_path, "b", "11.6.124", torch=True)
    report = diff_documents(a, b, target="close")
    toolkit = [f for f in report.findings if "11.5.119" in f.title]
    assert toolkit
    assert all(f.rule == "noise.paths" and f.severity == "info" for f in toolkit)


def test_same_system_toolkit_is_no_finding(tmp_path: Path) -> None:
    a = _report(tmp_path, "a", "11.6.124", torch=False)
    b = _report(tmp_path, "b", "11.6.124", torch=False)
    assert all(f.rule != "stack.cuda-toolkit" for f in diff_documents(a, b).findings)
