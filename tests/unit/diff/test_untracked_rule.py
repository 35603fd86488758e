"""Untracked files and tracked edits are two findings: real captures of a real git repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.api import capture
from envsnap.diff import diff_documents
from envsnap.diff.report import SEVERITY_RANK, Report

MakeRepo = Callable[..., Path]


def _code_capture(root: Path) -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return capture(only=["code"]).to_document()


def _above_info(report: Report) -> list[tuple[str, str]]:
    return [
        (f.rule, f.severity)
        for f in report.findings
        if SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"]
    ]


def test_an_untracked_file_is_the_untracked_rule_at_a_lower_severity(make_repo: MakeRepo) -> None:
    repo = make_repo()
    clean = _code_capture(repo)
    (repo / "scratch.py").write_text("print('not committed')\n")
    untracked = _code_capture(repo)
    assert untracked["code"]["dirty"] is False
    assert _above_info(diff_documents(clean, untracked)) == [("code.untracked", "low")]
    bitwise = diff_documents(clean, untracked, target="bitwise")
    assert _above_info(bitwise) == [("code.untracked", "medium")]


def test_a_tracked_edit_is_still_code_dirty_at_high(make_repo: MakeRepo) -> None:
    repo = make_repo()
    clean = _code_capture(repo)
    (repo / "train.py").write_text("print('edited')\n")
    edited = _code_capture(repo)
    assert edited["code"]["dirty"] is True
    assert _above_info(diff_documents(clean, edited)) == [("code.dirty", "high")]
