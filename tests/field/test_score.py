"""The scorer: the cause's rank (merged rules count), every draw must pass, and notes that
rank above real differences are found."""

from __future__ import annotations

import json

import pytest

from envsnap.diff.report import Basis, Finding, Report, Severity, Summary
from tests.field.score import Outcome, cause_rank, note_above_difference, summary, table
from tests.field.synthetic import IMPORTED


def _finding(rank: int, rule: str, severity: Severity = "high", basis: Basis = "stated") -> Finding:
    return Finding(
        rank=rank,
        rule=rule,
        severity=severity,
        category="hardware",
        path="gpu.devices",
        title="t",
        why="w",
        fix="f",
        basis=basis,
    )


def _report(*findings: Finding) -> Report:
    return Report(
        kind="diff",
        target="close",
        summary=Summary(counts={}, verdict="v"),
        findings=list(findings),
    )


def test_cause_rank_counts_rules_merged_into_the_same_cause() -> None:
    report = _report(_finding(1, "hw.gpu"), _finding(2, "precision.tf32-arch"))
    assert cause_rank(report, ["hw.gpu"]) == 1
    # precision.tf32-library is merged with precision.tf32-arch into one TF32 cause.
    assert cause_rank(report, ["precision.tf32-library"]) == 2
    assert cause_rank(report, ["stack.cudnn"]) is None


def test_cause_rank_stops_at_info() -> None:
    report = _report(_finding(1, "hw.gpu"), _finding(2, "stack.cudnn", severity="info"))
    assert cause_rank(report, ["stack.cudnn"]) is None


def test_a_note_above_a_real_difference_is_found() -> None:
    ordered = _report(_finding(1, "hw.gpu"), _finding(2, "stack.cudnn", basis="unknown"))
    assert note_above_difference(ordered) is None
    wrong = _report(
        _finding(1, "stack.cudnn", basis="shared"),
        _finding(2, "hw.gpu", basis="inferred"),
    )
    found = note_above_difference(wrong)
    assert found is not None
    assert (found[0].rule, found[1].rule) == ("stack.cudnn", "hw.gpu")


def _outcome(ranks: tuple[int | None, ...], half: str = "dev") -> Outcome:
    return Outcome(
        case=f"c-{ranks}",
        half=half,  # type: ignore[arg-type]
        route="nvml",
        category="hardware",
        target="close",
        ranks=ranks,
        top="hw.gpu",
    )


def test_a_case_counts_only_if_every_draw_passes() -> None:
    outcomes = [_outcome((1, 1, 1)), _outcome((1, 2, 1)), _outcome((1, None, 1)), _outcome(())]
    assert [o.worst for o in outcomes] == [1, 2, None, None]
    assert summary(outcomes, "close") == (1, 2, 4)


def test_the_table_has_subtotals_per_half_route_and_category() -> None:
    rows = table([_outcome((1, 1, 1)), _outcome((3, 3, 3), half="eval")])
    by_key = {(r.half, r.route, r.category, r.target): (r.top1, r.top3, r.total) for r in rows}
    assert by_key[("dev", "nvml", "hardware", "close")] == (1, 1, 1)
    assert by_key[("eval", "all", "all", "close")] == (0, 1, 1)
    assert by_key[("all", "all", "all", "close")] == (1, 2, 2)


def test_the_runner_prints_a_line_per_case_and_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.field import __main__ as runner

    monkeypatch.setattr(runner, "load_cases", lambda: [IMPORTED])
    assert runner.main(["--half", "all", "--draws", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(IMPORTED["id"])
    assert "all   all       all         close" in out
    assert runner.main(["--half", "all", "--draws", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["cases"][IMPORTED["id"]]["targets"]["close"]["ranks"]) == 2
