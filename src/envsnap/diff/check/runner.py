"""Run every lint over a manifest and rank the hits into a `Report` (kind "check")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envsnap.diff.check.catalog import RULES_BY_ID
from envsnap.diff.check.lints import LINTS, Subject
from envsnap.diff.findings import make_finding, make_report
from envsnap.diff.report import (
    SEVERITIES,
    SEVERITY_RANK,
    Report,
    Severity,
    Target,
    severity_counts,
    severity_key,
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
    # A check finding has one side: what a lint put in `b` is not shown.
    findings = [make_finding(RULES_BY_ID[hit.rule], replace(hit, b=None), target) for hit in hits]
    findings.sort(key=lambda f: (*severity_key(f), f.rule, f.path))
    return make_report(
        "check",
        target,
        findings,
        lambda ranked: _verdict(severity_counts(ranked), target),
        a=label,
    )
