"""`--debug` works where the error hint says it does: before or after the command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import CliResult

Run = Callable[..., CliResult]


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    return path


def test_without_debug_the_error_is_one_line(broken: Path, run_cli_process: Run) -> None:
    result = run_cli_process("diff", str(broken), str(broken))
    assert result.code == 2
    assert result.err.count("\n") == 1 and result.err.startswith("envsnap: error:")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_before_or_after_the_command_shows_the_traceback(
    where: str, broken: Path, run_cli_process: Run
) -> None:
    args = ["diff", str(broken), str(broken)]
    result = run_cli_process(*(["--debug", *args] if where == "before" else [*args, "--debug"]))
    assert "Traceback (most recent call last)" in result.err, result.err
    assert "ManifestError" in result.err
    assert "No such option" not in result.err


def test_debug_after_double_dash_belongs_to_the_wrapped_command() -> None:
    from envsnap.cli import _take_debug

    assert _take_debug(["run", "--as", "b.json", "--", "train.py", "--debug"]) == (
        False,
        ["run", "--as", "b.json", "--", "train.py", "--debug"],
    )
    assert _take_debug(["diff", "a", "b", "--debug"]) == (True, ["--debug", "diff", "a", "b"])


def test_the_internal_error_hint_names_a_flag_that_works() -> None:
    from envsnap.cli import _unexpected

    assert "(rerun with --debug)" in _unexpected(ValueError("boom"))
