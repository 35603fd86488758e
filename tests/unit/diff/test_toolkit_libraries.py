"""The libraries a conda cudatoolkit ships move with it: one CUDA toolkit finding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from tests.helpers import FIXTURES
from tests.helpers.importers import imported_report

# A real 2020 report: torch 1.6.0 from conda, cudatoolkit 10.1.243, on eight V100s.
REPORT = FIXTURES / "collect_env" / "real" / "gpu-perf-test_2020_v100_conda_cudatoolkit.txt"
_TOOLKIT_LINE = "[conda] cudatoolkit               10.1.243             h6bb024c_0  "


def _report(tmp_path: Path, name: str, toolkit: str, cuda: str) -> dict[str, Any]:
    text = REPORT.read_text(encoding="utf-8")
    assert _TOOLKIT_LINE in text
    text = text.replace(_TOOLKIT_LINE, _TOOLKIT_LINE.replace("10.1.243", toolkit))
    text = text.replace("CUDA used to build PyTorch: 10.1", f"CUDA used to build PyTorch: {cuda}")
    return imported_report(tmp_path, name, text)


def test_a_cudatoolkit_change_is_one_finding_naming_the_libraries_it_ships(
    tmp_path: Path,
) -> None:
    a = _report(tmp_path, "a", "10.1.243", "10.1")
    b = _report(tmp_path, "b", "10.2.89", "10.2")
    for target in ("bitwise", "close", "conclusion"):
        findings = diff_documents(a, b, target=target).findings
        top = findings[0]
        assert top.rule == "stack.cuda-toolkit", (target, [f.rule for f in findings])
        assert {"stack.cublas", "stack.cuda-library"} <= set(top.rules)
        assert "cublas" in top.title and "from the cudatoolkit package" in top.title
        # No library of the package is a finding of its own.
        others = [f.rule for f in findings[1:]]
        assert "stack.cublas" not in others and "stack.cuda-library" not in others, others


def test_a_library_from_its_own_package_stays_its_own_finding(tmp_path: Path) -> None:
    a = _report(tmp_path, "a", "10.1.243", "10.1")
    b = _report(tmp_path, "b", "10.1.243", "10.1")
    b["cuda_stack"]["libraries"]["cublas"]["version"] = "10.2.2.89"
    b["cuda_stack"]["libraries"]["cublas"]["selected"].update(
        package="nvidia-cublas-cu10", source="pip", version="10.2.2.89"
    )
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert "stack.cublas" in rules
