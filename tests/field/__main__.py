"""`python -m tests.field`: one line per case and target, then the score per target."""

from __future__ import annotations

from envsnap.diff.report import TARGETS
from tests.field.score import load_cases, score, summary


def main() -> None:
    outcomes = score(load_cases())
    for outcome in outcomes:
        print(outcome.line)
    for target in TARGETS:
        top1, top3, total = summary(outcomes, target)
        print(f"field {target}: top1={top1}/{total} top3={top3}/{total}")


if __name__ == "__main__":
    main()
