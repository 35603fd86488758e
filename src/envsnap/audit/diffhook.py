"""The differ's hook: an advisory that applies to exactly one side is a finding of its own.

It is the most specific cause a diff can name, so each hit carries the advisory's own
severities; 'possible' (a fact one side lacks) is not counted as applying.
"""

from __future__ import annotations

from typing import Any

from envsnap.audit.database import bundled
from envsnap.audit.engine import evaluate
from envsnap.diff.derived import Hit
from envsnap.diff.report import TARGETS


def advisory_hits(a: dict[str, Any], b: dict[str, Any]) -> list[Hit]:
    hits = []
    for advisory in bundled().advisories:
        in_a, in_b = evaluate(advisory, a) is True, evaluate(advisory, b) is True
        if in_a == in_b:
            continue
        side = "A" if in_a else "B"
        names = ", ".join(name for name, _ in advisory.packages)
        severity = advisory.envsnap.severity
        hits.append(
            Hit(
                "advisory.one-side",
                f"packages.installed.{advisory.packages[0][0]}",
                "applies" if in_a else "does not apply",
                "applies" if in_b else "does not apply",
                title=f"{advisory.id} applies to {side} only ({names}): {advisory.record.summary}",
                severity=(severity[TARGETS[0]], severity[TARGETS[1]], severity[TARGETS[2]]),
            )
        )
    return hits
