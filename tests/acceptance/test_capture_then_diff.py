"""Two captures of one unchanged environment: the differ finds nothing that matters."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.slow
def test_two_captures_in_a_row_have_no_finding_above_info(
    make_repo, run_cli_process, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        result = run_cli_process("capture", "-o", str(out), "--budget", "120", cwd=repo)
        assert result.code == 0, result.err
    diff = run_cli_process(
        "diff", str(first), str(second), "--fail-on", "low", "-f", "markdown", cwd=repo
    )
    assert diff.code == 0, diff.out + diff.err
    assert "no difference expected to change results" in diff.out
