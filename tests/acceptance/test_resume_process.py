"""Resume verification end to end: a real model on CPU, a save, a new process, a restore.

20 updates run continuously (trace A), saving after update 10 on the way. A new process restores
that save with `load_training_state` and runs updates 11-20, appending to a trace that holds
updates 1-10 (trace B). The traces must be identical
bitwise; then each fault alone must be flagged at update 11 with the right diagnosis.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.helpers import CliResult

pytestmark = pytest.mark.slow
SCRIPT = Path(__file__).with_name("resume_train.py")
REPO = Path(__file__).resolve().parents[2]
FAULTS = {
    "no-optimizer": "optimizer-state",
    "data-reset": "data-cursor",
    "no-rng": "rng",
    "mid-accumulation": "accumulation-boundary",
}


def _train(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=240
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("resume")
    continuous = root / "continuous.jsonl"
    _train(
        "run",
        "--trace",
        str(continuous),
        "--updates",
        "20",
        "--save-at",
        "10",
        "--ckpt",
        str(root / "ckpt"),
        "--ckpt-mid",
        str(root / "ckpt-mid"),
    )
    traces = {"continuous": continuous}
    # Updates 1-10 of the interrupted run are the continuous run's first 10 lines (one session).
    first_half = "".join(continuous.read_text().splitlines(keepends=True)[:11])
    resume_args: list[str] = []
    for fault in ("none", *FAULTS):
        trace = root / f"resumed-{fault}.jsonl"
        trace.write_text(first_half)
        ckpt = root / ("ckpt-mid" if fault == "mid-accumulation" else "ckpt")
        resume_args += ["--trace", str(trace), "--ckpt", str(ckpt), "--fault", fault]
        traces[fault] = trace
    # One new process resumes five times, each time as a fresh job (new objects, fresh seeds).
    _train("resume", "--updates", "20", *resume_args)
    traces["ckpt"], traces["ckpt-mid"] = root / "ckpt", root / "ckpt-mid"
    return traces


def test_save_exit_restore_is_bitwise_identical(
    runs: dict[str, Path], run_cli: Callable[..., CliResult]
) -> None:
    result = run_cli(
        "trace", "diff", str(runs["continuous"]), str(runs["none"]), "--format", "json"
    )
    assert result.code == 0, result.out
    report = json.loads(result.out)
    assert report["agree"] and report["first_difference"] is None
    assert report["updates"] == 20 and report["resumes_b"] == [11]
    # The traces really carry the state: every digest is recorded on every line.
    line = json.loads(runs["none"].read_text().splitlines()[-1])
    assert all(line[k] for k in ("samples", "params", "optim", "sched"))
    assert line["rng"]["torch"]


@pytest.mark.parametrize(("fault", "diagnosis"), sorted(FAULTS.items()))
def test_each_fault_is_flagged_at_update_11(
    runs: dict[str, Path], run_cli: Callable[..., CliResult], fault: str, diagnosis: str
) -> None:
    result = run_cli("trace", "diff", str(runs["continuous"]), str(runs[fault]), "--format", "json")
    assert result.code == 1, result.out
    report = json.loads(result.out)
    first = report["first_difference"]
    assert first["update"] == 11 and first["after_resume"]
    assert first["previous_update"] == 10
    assert report["diagnosis"]["code"] == diagnosis
    table = run_cli("trace", "diff", str(runs["continuous"]), str(runs[fault]))
    assert table.code == 1 and "DIVERGED at update 11" in table.out


def test_close_mode_still_names_the_resume_fault(
    runs: dict[str, Path], run_cli: Callable[..., CliResult]
) -> None:
    result = run_cli(
        "trace",
        "diff",
        str(runs["continuous"]),
        str(runs["no-optimizer"]),
        "--mode",
        "close",
        "--format",
        "json",
    )
    report = json.loads(result.out)
    assert result.code == 1
    # The fresh optimizer also lost the scheduled lr, so even tolerant mode diverges at 11.
    assert report["divergence_update"] == 11
    assert report["diagnosis"]["code"] == "optimizer-state"


def test_ckpt_inspect_on_the_saves(
    runs: dict[str, Path], run_cli: Callable[..., CliResult]
) -> None:
    complete = run_cli("ckpt", "inspect", str(runs["ckpt"]), "--format", "json")
    report = json.loads(complete.out)
    missing = {i["item"] for i in report["items"] if not i["present"]}
    assert missing == {"scaler"}  # this job uses no loss scaler
    mid = json.loads(run_cli("ckpt", "inspect", str(runs["ckpt-mid"]), "--format", "json").out)
    assert "ckpt.boundary.mid-accumulation" in {f["rule"] for f in mid["findings"]}
