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


JOB = """\
import argparse, random, sys
import envsnap

parser = argparse.ArgumentParser()
parser.add_argument("--out")
args = parser.parse_args()
envsnap.capture(args.out, only=["seeds", "python", "env"])
"""


@pytest.mark.slow
def test_two_in_job_captures_differing_only_in_output_dir_have_nothing_above_info(
    make_repo, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The job never seeds python's `random`: its state is fresh OS entropy in each process,
    so its digest differs between any two runs without any condition having changed."""
    import json
    import os
    import subprocess
    import sys

    from envsnap.diff import diff_documents
    from tests.helpers.manifests import above_info

    repo = make_repo()
    (repo / "job.py").write_text(JOB)
    outs = [tmp_path / "a.json", tmp_path / "a2.json"]
    for out in outs:
        subprocess.run(
            [sys.executable, "job.py", "--out", str(out)],
            cwd=repo,
            env=dict(os.environ),
            check=True,
            timeout=120,
        )
    a, b = (json.loads(out.read_text()) for out in outs)
    assert a["seeds"]["state_digests"]["python"] != b["seeds"]["state_digests"]["python"]
    assert above_info(diff_documents(a, b)) == []
