"""Exact resumption across a process boundary: train, save, exit; a new process restores and
continues, and matches an uninterrupted run bit for bit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT

pytestmark = pytest.mark.slow


def _loop(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    subprocess.run(
        [sys.executable, "-m", "tests.helpers.seeding_loop", *args],
        cwd=REPO_ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=240,
    )


def _read(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return result


def test_save_exit_restore_in_new_process_matches_uninterrupted_run(tmp_path: Path) -> None:
    whole, resumed, checkpoint = (
        tmp_path / "whole.json",
        tmp_path / "resumed.json",
        tmp_path / "ck.pt",
    )
    _loop("full", "--seed", "21", "--epochs", "3", "--out", str(whole))
    _loop("first", "--seed", "21", "--epochs", "1", "--checkpoint", str(checkpoint))
    _loop("rest", "--checkpoint", str(checkpoint), "--epochs", "3", "--out", str(resumed))
    a, b = _read(whole), _read(resumed)
    assert len(a["losses"]) == 12
    assert b["losses"] == a["losses"]
    assert b["batches"] == a["batches"]
    assert b["params_sha256"] == a["params_sha256"]
