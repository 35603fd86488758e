"""`envsnap trace diff`: diagnoses from hand-built traces, output formats, and bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.training.trace import compare_traces, read_trace
from tests.helpers import CliResult

Run = Callable[..., CliResult]
SESSION = {
    "kind": "session",
    "format": 1,
    "every": 1,
    "digests": ["optim", "params", "rng", "samples", "sched"],
}


def _update(n: int, **changes: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "kind": "update",
        "update": n,
        "micro_steps": 1,
        "loss": 1.0 / n,
        "lr": [0.1],
        "grad_norm": None,
        "scale": None,
        "skipped": 0,
        "samples": f"s{n}",
        "params": f"p{n}",
        "optim": f"o{n}",
        "sched": f"c{n}",
        "rng": {"python": f"r{n}", "numpy": None, "torch": f"t{n}", "cuda": None},
    }
    line.update(changes)
    return line


def _write(path: Path, *sessions: list[dict[str, Any]]) -> Path:
    lines = []
    for updates in sessions:
        lines.append(json.dumps(SESSION))
        lines.extend(json.dumps(u) for u in updates)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    return _write(tmp_path / "a.jsonl", [_update(n) for n in range(1, 7)])


def _resumed(tmp_path: Path, **changes_at_4: Any) -> Path:
    later = [_update(4, **changes_at_4)] + [
        _update(n, params="x", optim="x", loss=9.0) for n in (5, 6)
    ]
    return _write(tmp_path / "b.jsonl", [_update(n) for n in (1, 2, 3)], later)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"micro_steps": 2, "samples": "other"}, "accumulation-boundary"),
        ({"samples": "other", "loss": 3.0}, "data-cursor"),
        (
            {"rng": {"python": "r4", "numpy": None, "torch": "other", "cuda": None}, "loss": 3.0},
            "rng",
        ),
        ({"skipped": 1, "optim": "other"}, "scaler"),
        ({"optim": "other", "params": "other"}, "optimizer-state"),
        ({"sched": "other", "lr": [0.2], "params": "other"}, "scheduler-state"),
        ({"loss": 3.0, "optim": "other", "params": "other"}, "model-state"),
    ],
)
def test_first_difference_after_resume_is_diagnosed(
    reference: Path, tmp_path: Path, changes: dict[str, Any], code: str
) -> None:
    result = compare_traces(read_trace(reference), read_trace(_resumed(tmp_path, **changes)))
    assert not result.agree
    first = result.first_difference
    assert first is not None and first.update == 4 and first.after_resume
    assert first.previous_update == 3
    assert result.diagnosis is not None and result.diagnosis.code == code
    fields = [d.field for d in first.fields]
    order = [
        "micro_steps",
        "samples",
        "rng.torch",
        "skipped",
        "optim",
        "sched",
        "lr",
        "loss",
        "params",
    ]
    assert fields == [f for f in order if f in fields]  # causal order


def test_scaler_diagnosis_names_the_skipped_counts(reference: Path, tmp_path: Path) -> None:
    result = compare_traces(read_trace(reference), read_trace(_resumed(tmp_path, skipped=2)))
    assert result.diagnosis is not None
    assert "skipped updates: A 0, B 2" in result.diagnosis.cause
    assert "LR schedule shifts" in result.diagnosis.cause


def _drift(path: Path, delta: float) -> Path:
    updates = [_update(n) for n in (1, 2, 3)]
    updates += [_update(n, loss=1.0 / n + delta, params=f"q{n}", optim=f"q{n}") for n in (4, 5, 6)]
    return _write(path, updates)


def test_late_drift_within_tolerance_is_numerical_nondeterminism(
    reference: Path, tmp_path: Path, run_cli: Run
) -> None:
    drifted = _drift(tmp_path / "b.jsonl", 1e-9)
    bitwise = compare_traces(read_trace(reference), read_trace(drifted))
    assert not bitwise.agree and bitwise.first_difference is not None
    assert not bitwise.first_difference.after_resume
    assert bitwise.diagnosis is not None and bitwise.diagnosis.code == "numerics"
    assert "within rtol" in bitwise.diagnosis.cause and "envsnap diff" in bitwise.diagnosis.fix
    close = run_cli("trace", "diff", str(reference), str(drifted), "--mode", "close")
    assert close.code == 0 and "AGREE within tolerance" in close.out
    far = _drift(tmp_path / "c.jsonl", 1e-2)
    result = run_cli(
        "trace", "diff", str(reference), str(far), "--mode", "close", "--format", "json"
    )
    assert result.code == 1
    assert json.loads(result.out)["divergence_update"] == 4
    assert "beyond rtol" in json.loads(result.out)["diagnosis"]["cause"]


def test_identical_traces_agree(reference: Path, run_cli: Run) -> None:
    result = run_cli("trace", "diff", str(reference), str(reference))
    assert result.code == 0 and "AGREE: the traces are identical" in result.out


def test_cli_table_output(reference: Path, tmp_path: Path, run_cli: Run) -> None:
    result = run_cli("trace", "diff", str(reference), str(_resumed(tmp_path, optim="other")))
    assert result.code == 1
    assert "DIVERGED at update 4" in result.out
    assert "first update after a resume" in result.out
    assert "optimizer state was not restored" in result.out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            json.dumps(SESSION)
            + "\n"
            + json.dumps(_update(1))
            + "\n"
            + json.dumps(_update(2))[:40],
            "line 3 is truncated",
        ),
        (json.dumps(SESSION) + "\nnot json at all\n", "line 2 is not JSON"),
        ("", "no update records"),
        (json.dumps(_update(1)) + "\n", "before any session line"),
        (
            json.dumps(SESSION) + "\n" + json.dumps({"kind": "update", "update": 1}) + "\n",
            "line 2 is not a valid update record",
        ),
        (json.dumps(SESSION) + "\n" + json.dumps([1, 2]) + "\n", "not an envsnap trace record"),
        (
            json.dumps(SESSION)
            + "\n"
            + json.dumps(_update(2))
            + "\n"
            + json.dumps(_update(1))
            + "\n",
            "out of order",
        ),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(
    reference: Path, tmp_path: Path, run_cli: Run, content: str, message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    result = run_cli("trace", "diff", str(reference), str(bad))
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert result.out == ""


def test_mismatched_update_counts_exit_2(reference: Path, tmp_path: Path, run_cli: Run) -> None:
    short = _write(tmp_path / "short.jsonl", [_update(n) for n in range(1, 5)])
    result = run_cli("trace", "diff", str(reference), str(short))
    assert result.code == 2
    assert "update counts do not match" in result.err and "update 5 is only in A" in result.err
    assert run_cli("trace", "diff", str(reference), str(tmp_path / "missing.jsonl")).code == 2
