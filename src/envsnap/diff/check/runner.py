"""Run every lint over a manifest and rank the hits into a `Report` (kind "check")."""

from __future__ import annotations

from typing import Any

from envsnap.diff.check.catalog import RULES_BY_ID
from envsnap.diff.check.lints import LINTS, Subject
from envsnap.diff.derived import Hit
from envsnap.diff.report import (
    SEVERITIES,
    SEVERITY_RANK,
    TARGETS,
    Finding,
    Report,
    Severity,
    Summary,
    Target,
    numbered,
    severity_counts,
    severity_key,
)


def _severity(hit: Hit, target: Target) -> Severity:
    rule = RULES_BY_ID[hit.rule]
    return hit.severity[TARGETS.index(target)] if hit.severity else rule.severity_for(target)


def _finding(hit: Hit, target: Target) -> Finding:
    rule = RULES_BY_ID[hit.rule]
    return Finding(
        rank=0,
        rule=rule.id,
        severity=_severity(hit, target),
        category=rule.category,
        path=hit.path,
        a=hit.a,
        title=hit.title or rule.title,
        why=rule.why,
        fix=rule.fix,
        refs=list(rule.refs),
    )


def _verdict(counts: dict[Severity, int], target: Target) -> str:
    worst = next((name for name in SEVERITIES if counts[name]), None)
    if worst is None:
        return f"no findings: nothing recorded here stands in the way of a {target} reproduction"
    if worst == "info":
        return f"only informational findings for a {target} reproduction"
    above = sum(counts[name] for name in SEVERITIES if SEVERITY_RANK[name] > SEVERITY_RANK["info"])
    return f"{above} finding(s) can affect a {target} reproduction; the worst is {worst}"


def check_document(
    document: dict[str, Any],
    target: Target = "close",
    *,
    live: bool = False,
    label: str | None = None,
) -> Report:
    """Lint one manifest document. `live` marks a capture taken from outside the job."""
    subject = Subject(doc=document, live=live)
    hits = [hit for lint in LINTS for hit in lint(subject)]
    findings = [_finding(hit, target) for hit in hits]
    findings.sort(key=lambda f: (*severity_key(f), f.rule, f.path))
    ranked = numbered(findings)
    counts = severity_counts(ranked)
    return Report(
        kind="check",
        target=target,
        a=label,
        summary=Summary(counts=counts, verdict=_verdict(counts, target)),
        findings=ranked,
    )
