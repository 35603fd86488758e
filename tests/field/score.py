"""Score the differ on the field corpus: where the established cause ranks, per target."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.report import TARGETS, Report, Target
from tests.field.build import pair

CASES_DIR = Path(__file__).parent / "cases"


def load_cases() -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text(encoding="utf-8")) for path in sorted(CASES_DIR.glob("*.json"))
    ]


@dataclass(frozen=True)
class Outcome:
    case: str
    target: Target
    rank: int | None  # 1-based rank of the first finding naming the cause; None if absent
    top: str

    @property
    def line(self) -> str:
        where = f"rank {self.rank}" if self.rank else "missed"
        return f"{self.case:<62} {self.target:<10} {where:<8} top={self.top}"


def cause_rank(report: Report, rules: list[str]) -> int | None:
    """Rank of the first finding above info whose rule (or a rule merged into the same cause)
    is one of the labelled rules."""
    merges = {RULES_BY_ID[rule].merge for rule in rules if rule in RULES_BY_ID} - {None}
    for finding in report.findings:
        if finding.severity == "info":
            break
        if finding.rule in rules or RULES_BY_ID[finding.rule].merge in merges:
            return finding.rank
    return None


def score(cases: list[dict[str, Any]], targets: tuple[Target, ...] = TARGETS) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for case in cases:
        doc_a, doc_b = pair(case)
        for target in targets:
            report = diff_documents(doc_a, doc_b, target=target)
            top = report.findings[0].rule if report.findings else "-"
            rank = cause_rank(report, case["label"]["rules"])
            outcomes.append(Outcome(case["id"], target, rank, top))
    return outcomes


def summary(outcomes: list[Outcome], target: Target) -> tuple[int, int, int]:
    """(top-1 hits, top-3 hits, cases) for one target."""
    mine = [o for o in outcomes if o.target == target]
    top1 = sum(1 for o in mine if o.rank == 1)
    top3 = sum(1 for o in mine if o.rank is not None and o.rank <= 3)
    return top1, top3, len(mine)
