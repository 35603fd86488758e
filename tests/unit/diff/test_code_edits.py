"""An uncommitted edit that only sets a torch setting joins that setting's finding.

Real git repositories, and a real job run from each in a fresh interpreter: the script's own
lines set torch's flags, and envsnap records the patch and the flags the script left.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.code_edits import edited_settings
from envsnap.diff.report import Report

pytest.importorskip("torch")

MakeRepo = Callable[..., Path]
REPO_ROOT = Path(__file__).resolve().parents[3]
JOB = """\
import json
import torch
import envsnap

LEARNING_RATE = 0.1
# settings
print(json.dumps(envsnap.capture(only=["code", "torch"]).to_document()))
"""


def _run(repo: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "train.py"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return document


def _edit(repo: Path, old: str, new: str) -> None:
    script = repo / "train.py"
    script.write_text(script.read_text().replace(old, new))


def _job_repo(make_repo: MakeRepo) -> Path:
    """A repository whose committed job captures itself; each test edits it after a clean run."""
    repo: Path = make_repo()
    (repo / "train.py").write_text(JOB)
    subprocess.run(["git", "commit", "-qam", "job"], cwd=repo, check=True)
    return repo


def _above_info(report: Report) -> list[str]:
    return [finding.rule for finding in report.findings if finding.severity != "info"]


@pytest.mark.slow
def test_an_edit_that_only_pins_a_backend_is_that_backend_s_finding(make_repo: MakeRepo) -> None:
    pinned = _job_repo(make_repo)
    clean = _run(pinned)
    _edit(pinned, "# settings", "torch.backends.cuda.enable_cudnn_sdp(False)  # hangs on B200")
    edited = _run(pinned)
    assert edited["code"]["dirty"] is True and "enable_cudnn_sdp" in edited["code"]["patch"]
    report = diff_documents(clean, edited)
    assert _above_info(report)[0] == "algo.sdpa"
    assert "code.dirty" not in _above_info(report)
    top = report.findings[0]
    assert "code.dirty" in top.rules
    assert top.title.endswith("; set by the uncommitted edit in B")
    assert top.severity == "medium"  # the setting's own severity, not the dirty tree's high
    assert {item.path for item in top.evidence} >= {"torch.sdpa.cudnn", "code.dirty"}


@pytest.mark.slow
def test_an_edit_that_also_changes_other_code_keeps_its_own_finding(make_repo: MakeRepo) -> None:
    both = _job_repo(make_repo)
    clean = _run(both)
    _edit(both, "# settings", "torch.backends.cuda.enable_cudnn_sdp(False)")
    _edit(both, "LEARNING_RATE = 0.1", "LEARNING_RATE = 0.3")
    report = diff_documents(clean, _run(both))
    assert _above_info(report)[:2] == ["code.dirty", "algo.sdpa"]
    assert not report.findings[1].title.endswith("uncommitted edit in B")


@pytest.mark.slow
def test_an_edit_whose_setting_both_sides_record_alike_keeps_its_finding(
    make_repo: MakeRepo,
) -> None:
    default = _job_repo(make_repo)
    clean = _run(default)
    _edit(default, "# settings", "torch.backends.cuda.enable_math_sdp(True)")  # already on
    assert _above_info(diff_documents(clean, _run(default))) == ["code.dirty"]


def test_a_patch_s_settings_are_read_from_its_changed_lines_only() -> None:
    patch = (
        "diff --git a/train.py b/train.py\n"
        "--- a/train.py\n+++ b/train.py\n@@ -1,3 +1,4 @@\n"
        " import torch\n"
        "+torch.backends.cudnn.benchmark = True\n"
        "-torch.use_deterministic_algorithms(True)\n"
        "+\n"
        "+# a comment changes nothing\n"
        " main()\n"
    )
    assert edited_settings(patch) == {"torch.cudnn.", "torch.deterministic."}
    assert edited_settings(patch + "+model = Model(width=512)\n") is None
    assert edited_settings("diff --git a/notes.md b/notes.md\n+ \n") is None  # sets nothing
