"""The catch-all rules: nothing a manifest records is dropped from a diff."""

from __future__ import annotations

from envsnap.diff.catalog.refs import NUM
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="uncaptured",
        match=("**",),
        category="environment",
        severity=("high", "medium", "low"),
        title="cannot compare: not captured on one side",
        why="a value missing on one side could hide any difference its section records; it "
        "counts as a difference for bitwise comparisons and is flagged for the others.",
        fix="Capture the same collectors on both sides (see the collectors records).",
        refs=(f"{NUM} rule 9",),
        derived=True,
        # One note per section (the hit's component): 53 torch facts an imported record does
        # not state are one gap, each fact in the evidence.
        per="component",
    ),
    Rule(
        id="fallback",
        match=("**",),
        category="environment",
        severity=("low", "low", "low"),
        title="other difference",
        why="no catalog rule covers this field; it is reported so nothing is dropped.",
        fix="Check whether it matters for this job; a rule can be added to the catalog.",
        refs=(),
        derived=True,
        per="path",
    ),
)
