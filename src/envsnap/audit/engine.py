"""Evaluate the advisory database against one manifest document.

The package gate (OSV's affected ranges; any entry may match) is checked first, so most
advisories are dismissed by a dictionary lookup; only the survivors evaluate their
condition, and only the ones that apply are evaluated a second time with a trace that
explains the finding. That keeps the many-manifest audit close to the cost of parsing JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envsnap.audit.conditions import Match, Truth
from envsnap.audit.database import Advisory, Database
from envsnap.audit.facts import Doc, package_version
from envsnap.audit.ranges import affected
from envsnap.audit.results import AuditFinding, FactMatch
from envsnap.diff.report import SEVERITY_RANK, Target


def _and(left: Truth, right: Truth) -> Truth:
    if left is False or right is False:
        return False
    return None if left is None or right is None else True


class _Versions:
    """Package versions of one document, looked up once each."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.cache: dict[str, tuple[Any, ...] | None] = {}

    def of(self, name: str) -> tuple[Any, ...] | None:
        if name not in self.cache:
            self.cache[name] = package_version(self.doc, name)
        return self.cache[name]


def package_gate(advisory: Advisory, versions: _Versions) -> Truth:
    result: Truth = False
    for name, ranges in advisory.packages:
        found = versions.of(name)
        if found is None:
            result = None
        elif found and affected(str(found[0]), ranges):
            return True
    return result


def evaluate(advisory: Advisory, doc: Doc, versions: _Versions | None = None) -> Truth:
    """True: applies; False: does not; None: cannot tell from this manifest."""
    gate = package_gate(advisory, versions or _Versions(doc))
    if gate is False or advisory.when is None:
        return gate
    return _and(gate, advisory.when.evaluate(doc))


def _finding(advisory: Advisory, doc: Doc, status: Truth, target: Target) -> AuditFinding:
    trace: list[Match] = []
    if advisory.when is not None:
        advisory.when.evaluate(doc, trace)
    versions = _Versions(doc)
    packages = {}
    for name, _ranges in advisory.packages:
        found = versions.of(name)
        packages[name] = str(found[0]) if found else None
    spec = advisory.envsnap
    # model_construct: every field comes from a validated advisory or the manifest's JSON, and
    # skipping re-validation keeps many-manifest audits near the cost of parsing.
    return AuditFinding.model_construct(
        id=advisory.id,
        aliases=list(advisory.record.aliases),
        status="affected" if status else "possible",
        severity=spec.severity[target],
        severities=dict(spec.severity),
        category=spec.category,
        summary=advisory.record.summary,
        details=advisory.record.details,
        packages=packages,
        facts=[
            FactMatch.model_construct(
                fact=m.fact,
                test=m.test,
                values=list(m.values) if m.values is not None else None,
                outcome=m.outcome,
            )
            for m in trace
        ],
        fixed=advisory.fixed_versions(),
        workaround=spec.workaround,
        references=[ref.url for ref in advisory.record.references],
        ranks=None,
    )


def sort_key(finding: AuditFinding) -> tuple[int, int, str]:
    return (finding.status != "affected", -SEVERITY_RANK[finding.severity], finding.id)


def audit_document(
    doc: Doc, database: Database, *, target: Target = "close", ignore: Iterable[str] = ()
) -> list[AuditFinding]:
    """Every advisory that applies (or may apply) to a manifest, most severe first."""
    skip = set(ignore)
    versions = _Versions(doc)
    findings = []
    for advisory in database.advisories:
        if advisory.id in skip or skip.intersection(advisory.record.aliases):
            continue
        status = evaluate(advisory, doc, versions)
        if status is not False:
            findings.append(_finding(advisory, doc, status, target))
    return sorted(findings, key=sort_key)
