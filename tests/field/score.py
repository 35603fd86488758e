"""Score the differ on the field corpus: where the established cause ranks, per target and draw.

A case counts as top-1 (top-3) for a target only if the cause is at rank 1 (at most 3) in
every draw of the noise model: a differ that finds the cause only when the noise happens to be
kind has not found it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.catalog import cause_name
from envsnap.diff.report import TARGETS, Finding, Report, Target
from tests.field.noise import DRAWS
from tests.field.pairs import NotCaptured, pair
from tests.field.split import Half, half

Case = dict[str, Any]
NOTES = frozenset({"unknown", "shared"})


def cause_rank(report: Report, rules: Sequence[str]) -> int | None:
    """Rank of the first finding above info that one of the labelled rules is behind: its rule,
    a rule merged into the same cause, or a way that cause acts (`Finding.rules`)."""
    causes = {cause_name(rule) for rule in rules}
    for finding in report.findings:
        if finding.severity == "info":
            break
        behind = {finding.rule, *finding.rules}
        if behind & set(rules) or {cause_name(rule) for rule in behind} & causes:
            return finding.rank
    return None


def note_above_difference(report: Report) -> tuple[Finding, Finding] | None:
    """A note ranked above a real difference, as (note, difference); None when there is none.
    A real difference is stated or inferred and not bookkeeping. A note about what is not
    recorded (basis unknown) comes after every real difference; a risk both sides share (basis
    shared) comes after every real difference above info: one the differ expects to change
    nothing explains no disagreement, and the shared risk then may."""
    first: dict[str, Finding] = {}
    for finding in report.findings:
        if finding.basis in NOTES:
            first.setdefault(finding.basis, finding)
            continue
        if finding.category == "noise":
            continue
        if "unknown" in first:
            return first["unknown"], finding
        if "shared" in first and finding.severity != "info":
            return first["shared"], finding
    return None


@dataclass(frozen=True)
class Draw:
    """One draw of one case: the report per target."""

    case: str
    index: int
    reports: dict[Target, Report]


@dataclass(frozen=True)
class Outcome:
    """One case and target over every draw."""

    case: str
    half: Half
    route: str
    category: str
    target: Target
    ranks: tuple[int | None, ...]  # per draw; None where the cause is not above info
    top: str  # the top finding's rule in the worst draw
    missing: bool = False  # the case's captures are missing

    @property
    def worst(self) -> int | None:
        if self.missing or not self.ranks or None in self.ranks:
            return None
        return max(rank for rank in self.ranks if rank is not None)

    def within(self, top: int) -> bool:
        worst = self.worst
        return worst is not None and worst <= top


@cache
def reports(case_id: str, case_json: str, draws: int) -> tuple[Draw, ...]:
    """Every draw's reports for a case (cached: the tests read them several times)."""
    import json

    case = json.loads(case_json)
    out = []
    for index in range(draws):
        doc_a, doc_b = pair(case, index)
        out.append(
            Draw(
                case_id,
                index,
                {t: diff_documents(doc_a, doc_b, target=t) for t in TARGETS},
            )
        )
    return tuple(out)


def case_draws(case: Case, draws: int = DRAWS) -> tuple[Draw, ...]:
    import json

    return reports(case["id"], json.dumps(case, sort_keys=True), draws)


def _badness(rank: int | None) -> float:
    return float("inf") if rank is None else float(rank)


def score_case(case: Case, draws: int = DRAWS) -> list[Outcome]:
    base = {
        "case": case["id"],
        "half": half(case["id"]),
        "route": case["route"],
        "category": case["label"]["category"],
    }
    try:
        drawn = case_draws(case, draws)
    except NotCaptured:
        return [Outcome(**base, target=t, ranks=(), top="-", missing=True) for t in TARGETS]
    outcomes = []
    for target in TARGETS:
        ranks = tuple(cause_rank(d.reports[target], case["label"]["rules"]) for d in drawn)
        worst_draw = max(range(len(drawn)), key=lambda i: _badness(ranks[i]))
        findings = drawn[worst_draw].reports[target].findings
        top = findings[0].rule if findings else "-"
        outcomes.append(Outcome(**base, target=target, ranks=ranks, top=top))
    return outcomes


def score(cases: Iterable[Case], draws: int = DRAWS) -> list[Outcome]:
    return [outcome for case in cases for outcome in score_case(case, draws)]


def summary(outcomes: Iterable[Outcome], target: Target) -> tuple[int, int, int]:
    """(top-1 cases, top-3 cases, cases) for one target."""
    mine = [o for o in outcomes if o.target == target]
    return sum(o.within(1) for o in mine), sum(o.within(3) for o in mine), len(mine)


@dataclass(frozen=True)
class Row:
    half: str
    route: str
    category: str
    target: Target
    top1: int
    top3: int
    total: int


def table(outcomes: Sequence[Outcome]) -> list[Row]:
    """Top-1 and top-3 per half x route x category x target, with 'all' subtotals."""
    rows: list[Row] = []
    halves = ("dev", "eval", "all")
    routes = ("imported", "capture", "nvml", "all")
    categories = ("hardware", "cuda-stack", "software", "job", "all")
    for half_name in halves:
        for route in routes:
            for category in categories:
                for target in TARGETS:
                    mine = [
                        o
                        for o in outcomes
                        if o.target == target
                        and half_name in ("all", o.half)
                        and route in ("all", o.route)
                        and category in ("all", o.category)
                    ]
                    if mine:
                        top1, top3, total = summary(mine, target)
                        rows.append(Row(half_name, route, category, target, top1, top3, total))
    return rows
