"""Every text renderer lays out to the terminal's width (COLUMNS), not a fixed one."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, CliResult

MANIFEST = FIXTURES / "manifests" / "full.json"


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def _env(columns: int | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return env


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """A second manifest with a different hostname and thread count (re-sealed)."""
    from envsnap.manifest.canonical import digest_of

    document = json.loads(MANIFEST.read_text(encoding="utf-8"))
    document["system"]["hostname"] = "another-host-with-a-rather-long-name.example.internal"
    document["digest"] = digest_of(document)
    path = tmp_path / "other.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("columns", [60, 80, 132])
def test_show_and_diff_fit_the_terminal(
    run_cli_process: Callable[..., CliResult], other: Path, columns: int
) -> None:
    for args in (["show", str(MANIFEST)], ["diff", str(MANIFEST), str(other)]):
        result = run_cli_process(*args, env=_env(columns))
        assert result.code in (0, 1), result.err
        assert _widest(result.out) <= columns, (args, _widest(result.out))


def test_show_without_a_terminal_keeps_its_default_width(
    run_cli_process: Callable[..., CliResult],
) -> None:
    narrow = run_cli_process("show", str(MANIFEST), env=_env(60)).out
    default = run_cli_process("show", str(MANIFEST), env=_env(None)).out
    assert _widest(narrow) <= 60 < _widest(default) <= 110
