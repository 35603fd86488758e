"""The one findings builder: a rule hit at a path becomes a `Finding`; findings become a `Report`.

`envsnap diff` (rank.py), `envsnap check` (check/runner.py) and cluster manifests
(cluster/heterogeneity.py, cluster/io.py) all build their findings and reports here, so a
severity is always the rule's (or the hit's own) for the report's target.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from envsnap.diff.derived import Hit
from envsnap.diff.report import (
    TARGETS,
    Category,
    Finding,
    Report,
    Severity,
    Summary,
    Target,
    numbered,
    severity_counts,
)
from envsnap.diff.rules import Rule
from envsnap.diff.sides import DIFF_SIDES, Sides, name_sides


def severity_of(rule: Rule, hit: Hit, target: Target) -> Severity:
    """The hit's own severity for `target` when it carries one, else the rule's."""
    return hit.severity[TARGETS.index(target)] if hit.severity else rule.severity_for(target)


def make_finding(
    rule: Rule,
    hit: Hit,
    target: Target,
    *,
    category: Category | None = None,
    title: str | None = None,
    sides: Sides = DIFF_SIDES,
) -> Finding:
    """The finding of one hit, unranked (rank 0); `title` and `category` override the rule's;
    the title names the two sides as `sides` does."""
    return Finding(
        rank=0,
        rule=rule.id,
        severity=severity_of(rule, hit, target),
        category=category or rule.category,
        path=hit.path,
        a=hit.a,
        b=hit.b,
        title=name_sides(title or hit.title or rule.title, sides),
        why=rule.why,
        fix=rule.fix,
        refs=list(rule.refs),
        basis=hit.basis or ("inferred" if hit.inferred else "stated"),
    )


def make_report(
    kind: Literal["diff", "check"],
    target: Target,
    ordered: Iterable[Finding],
    verdict: Callable[[Sequence[Finding]], str],
    *,
    a: str | None = None,
    b: str | None = None,
) -> Report:
    """A report of findings already in rank order: numbered 1, 2, ..., counted, and judged
    by `verdict` (which sees the numbered findings)."""
    findings = numbered(ordered)
    return Report(
        kind=kind,
        target=target,
        a=a,
        b=b,
        summary=Summary(counts=severity_counts(findings), verdict=verdict(findings)),
        findings=findings,
    )
