"""`python -m tests.field [--half dev|eval|all] [--fresh [BATCH]] [--draws N] [--json]`: score the differ.

One line per case (half, route, category, the worst rank over the draws per target, the top
finding's rule), then the top-1 / top-3 table per half x route x category x target. The
default is the development half: the evaluation half is scored at the end, never tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from envsnap.diff.report import TARGETS
from tests.field.noise import DRAWS
from tests.field.pairs import load_cases
from tests.field.score import Outcome, score, table
from tests.field.split import BATCHES, FRESH, half


def _rank(outcome: Outcome) -> str:
    if outcome.missing:
        return "uncaptured"
    worst = outcome.worst
    return "missed" if worst is None else str(worst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.field")
    parser.add_argument("--half", choices=("dev", "eval", "all"), default="dev")
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--fresh",
        nargs="?",
        const="all",
        choices=("all", *BATCHES),
        help="only the cases of one batch added and labelled before any run (all: every batch)",
    )
    args = parser.parse_args(argv)
    fresh = None if args.fresh is None else BATCHES.get(args.fresh, FRESH)
    cases = [
        c
        for c in load_cases()
        if args.half in ("all", half(c["id"])) and (fresh is None or c["id"] in fresh)
    ]
    outcomes = score(cases, args.draws)
    rows = table(outcomes)
    if args.json:
        by_case: dict[str, dict[str, object]] = {}
        for o in outcomes:
            entry = by_case.setdefault(
                o.case,
                {"half": o.half, "route": o.route, "category": o.category, "targets": {}},
            )
            entry["targets"][o.target] = {  # type: ignore[index]
                "ranks": list(o.ranks),
                "worst": o.worst,
                "top": o.top,
                "missing": o.missing,
            }
        json.dump({"cases": by_case, "table": [asdict(r) for r in rows]}, sys.stdout, indent=1)
        print()
        return 0
    by_id: dict[str, dict[str, Outcome]] = {}
    for o in outcomes:
        by_id.setdefault(o.case, {})[o.target] = o
    for case_id, mine in by_id.items():
        first = mine[TARGETS[0]]
        ranks = " ".join(f"{t}={_rank(mine[t]):<10}" for t in TARGETS)
        print(
            f"{case_id:<64} {first.half:<4} {first.route:<8} {first.category:<10} "
            f"{ranks} top={mine['close'].top}"
        )
    print()
    print(f"{'half':<5} {'route':<9} {'category':<11} {'target':<11} top-1      top-3")
    for r in rows:
        print(
            f"{r.half:<5} {r.route:<9} {r.category:<11} {r.target:<11} "
            f"{r.top1:>3}/{r.total:<6} {r.top3:>3}/{r.total}"
        )
    missing = sorted({o.case for o in outcomes if o.missing})
    if missing:
        print(f"\n{len(missing)} cases have no captures: python -m tests.field.capture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
