"""A cause ranks by the largest effect of the ways it acts at its own severity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from tests.helpers import FIXTURES
from tests.helpers.importers import imported_report

# A real 2021 report: torch 1.7.0+cu110 on two RTX 2070 SUPER.
REAL = FIXTURES / "collect_env" / "real" / "pytorch-60367_rtx2070s.txt"


def _report(tmp_path: Path, name: str, torch: str, cuda: str, gpu: str) -> dict[str, Any]:
    text = REAL.read_text(encoding="utf-8").replace("1.7.0+cu110", torch)
    text = text.replace("PyTorch: 11.0", f"PyTorch: {cuda}")
    text = text.replace("NVIDIA GeForce RTX 2070 SUPER", gpu)
    return imported_report(tmp_path, name, text)


def test_a_gpu_change_acting_through_tf32_ranks_above_an_equally_severe_build_change(
    tmp_path: Path,
) -> None:
    # Pascal on a cu102 wheel against Ampere on a cu111 wheel: both changes are high for
    # bitwise; the GPU's acts through its random streams (82 SMs, not 28) and TF32, the build's
    # through kernels. Random streams move bits the most, precision moves values the most.
    a = _report(tmp_path, "a", "1.8.1+cu102", "10.2", "GeForce GTX 1080 Ti")
    b = _report(tmp_path, "b", "1.8.1+cu111", "11.1", "GeForce RTX 3090")
    for target, effect in (("bitwise", "changes random streams"), ("close", "changes precision")):
        findings = diff_documents(a, b, target=target).findings
        gpu = next(f for f in findings if f.rule == "hw.gpu")
        build = next(f for f in findings if f.rule == "stack.cuda-build")
        assert gpu.rank < build.rank, (target, [f.rule for f in findings])
        assert effect in gpu.rank_reason
        assert "changes kernels" in build.rank_reason
