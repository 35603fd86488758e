"""Audit one manifest document: the scan's hits, turned into findings most severe first.

The scan (scan.py) decides which advisories apply on the raw JSON; this module only adds
what a reader needs: the advisory's text, the severity for the target, and the facts that
matched. Auditing many manifests sends hits between processes and builds findings here, in
the process that shows them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from envsnap.audit.conditions import Test, Truth, tests_of
from envsnap.audit.database import Advisory, Database
from envsnap.audit.facts import Doc, Values
from envsnap.audit.results import AuditFinding, FactMatch
from envsnap.audit.scan import Hit, scan
from envsnap.diff.report import SEVERITY_RANK, Target


@dataclass(frozen=True)
class _Text:
    """What a finding takes from its advisory alone, computed once per advisory."""

    fixed: tuple[str, ...]
    references: tuple[str, ...]
    tests: tuple[Test, ...]


# id(advisory) -> (the advisory, kept alive so its id is never reused; its text).
_TEXT: dict[int, tuple[Advisory, _Text]] = {}


def _text(advisory: Advisory) -> _Text:
    cached = _TEXT.get(id(advisory))
    if cached is None:
        text = _Text(
            fixed=tuple(advisory.fixed_versions()),
            references=tuple(ref.url for ref in advisory.record.references),
            tests=tuple(tests_of(advisory.when)) if advisory.when is not None else (),
        )
        cached = _TEXT[id(advisory)] = (advisory, text)
    return cached[1]


def _deciding(test: Test, values: Values, outcome: Truth) -> list[Any] | None:
    """The value that made an any-of-several test pass: the one "why it applies" names."""
    if outcome is not True or test.every or values is None or len(values) < 2:
        return None
    return [next(value for value in values if test.check(value))]


def finding(advisory: Advisory, hit: Hit, target: Target) -> AuditFinding:
    """The finding of one hit, for the severities of `target`."""
    text, spec, record = _text(advisory), advisory.envsnap, advisory.record
    # model_construct: every field comes from a validated advisory or the manifest's JSON, and
    # skipping re-validation keeps many-manifest audits near the cost of parsing.
    return AuditFinding.model_construct(
        id=advisory.id,
        aliases=list(record.aliases),
        status="affected" if hit.affected else "possible",
        severity=spec.severity[target],
        severities=dict(spec.severity),
        category=spec.category,
        summary=record.summary,
        details=record.details,
        packages={
            name: version
            for (name, _), version in zip(advisory.packages, hit.versions, strict=True)
        },
        facts=[
            FactMatch.model_construct(
                fact=test.fact,
                test=test.describe(),
                values=list(values) if values is not None else None,
                outcome=outcome,
                deciding=_deciding(test, values, outcome),
            )
            for test, (values, outcome) in zip(text.tests, hit.trace, strict=True)
        ],
        fixed=list(text.fixed),
        workaround=spec.workaround,
        references=list(text.references),
        ranks=None,
    )


def sort_key(finding: AuditFinding) -> tuple[int, int, str]:
    return (finding.status != "affected", -SEVERITY_RANK[finding.severity], finding.id)


def findings_of(hits: Iterable[Hit], database: Database, target: Target) -> list[AuditFinding]:
    """Findings for hits of `database`, most severe first."""
    advisories = database.plan().by_id
    return sorted((finding(advisories[h.id], h, target) for h in hits), key=sort_key)


def audit_document(
    doc: Doc, database: Database, *, target: Target = "close", ignore: Iterable[str] = ()
) -> list[AuditFinding]:
    """Every advisory that applies (or may apply) to a manifest, most severe first."""
    return findings_of(scan(database.plan(ignore), doc), database, target)
