"""Findings and reports: the shared output of `envsnap diff` and `envsnap check`.

A finding says what differs (or what is wrong), how likely it is to change results for a given
reproduction target, why, and what to do. Reports list findings in rank order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypeVar

from pydantic import Field, JsonValue

from envsnap.manifest.sections.base import Model

Severity = Literal["critical", "high", "medium", "low", "info"]
Target = Literal["bitwise", "close", "conclusion"]
Category = Literal[
    "semantics",
    "data",
    "precision",
    "algorithm",
    "hardware",
    "stack",
    "randomness",
    "code",
    "environment",
    "noise",
]

# What a finding rests on: a difference the records state, a difference inferred from what they
# state (a release's defaults, the GPU table, a wheel's bundled libraries), a risk both sides
# share while nothing recorded differs, or a note about what is unknown. Notes and shared risks
# never rank above a stated or inferred difference.
Basis = Literal["stated", "inferred", "shared", "unknown"]
BASES: tuple[Basis, ...] = ("stated", "inferred", "shared", "unknown")

SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
# Higher is more severe; used for ranking and --fail-on thresholds.
SEVERITY_RANK: dict[str, int] = {name: len(SEVERITIES) - i for i, name in enumerate(SEVERITIES)}
TARGETS: tuple[Target, ...] = ("bitwise", "close", "conclusion")
# Category weight breaks ties between equal severities: semantics before noise (numerics.md rule 6).
CATEGORY_WEIGHT: dict[str, int] = {
    "semantics": 10,
    "data": 9,
    "precision": 8,
    "algorithm": 7,
    "hardware": 6,
    "stack": 5,
    "randomness": 4,
    "code": 3,
    "environment": 2,
    "noise": 1,
}


class Evidence(Model):
    path: str = Field(description="Dotted manifest path where the fact was seen.")
    a: JsonValue = Field(default=None, description="Value on side A.")
    b: JsonValue = Field(default=None, description="Value on side B.")
    inferred: str | None = Field(
        default=None,
        description="Null when both values are stated by the records; else what the values "
        "were inferred from (a release's default, the GPU table, a wheel's bundled library).",
    )


class Finding(Model):
    rank: int = Field(description="1-based position in the report.")
    rule: str = Field(description="Id of the rule that produced the finding.")
    severity: Severity = Field(description="Severity for the report's target.")
    category: Category = Field(description="What kind of cause this is.")
    path: str = Field(description="Dotted manifest path the finding is about.")
    a: JsonValue = Field(default=None, description="Value on side A (or the checked value).")
    b: JsonValue = Field(default=None, description="Value on side B (null for check findings).")
    title: str = Field(description="One-line statement of the finding.")
    why: str = Field(description="Why it can (or cannot) change results.")
    fix: str = Field(description="What to do about it.")
    refs: list[str] = Field(default_factory=list, description="Sources backing the rule.")
    evidence: list[Evidence] = Field(
        default_factory=list,
        description="Every path and value pair behind the finding (one fact may be seen at "
        "several paths); `path`, `a` and `b` repeat the first.",
    )
    rank_reason: str | None = Field(
        default=None,
        description="Why the finding ranks where it does: severity for the target, active or "
        "latent, specificity, effect size.",
    )
    basis: Basis = Field(
        default="stated",
        description="What the finding rests on: `stated` (a difference the records state), "
        "`inferred` (a difference inferred from what they state), `shared` (a risk both sides "
        "leave open while nothing recorded explains the disagreement) or `unknown` (a note "
        "about what is not recorded). `shared` and `unknown` never rank above the others.",
    )
    rules: list[str] = Field(
        default_factory=list,
        description="Every rule behind the finding, `rule` first: the rules that describe one "
        "fact together, and the ways one cause acts (the random streams and TF32 state a "
        "changed GPU brings). `--fail-on <rule>` trips on any of them.",
    )


class Summary(Model):
    counts: dict[Severity, int] = Field(description="Number of findings per severity.")
    verdict: str = Field(description="One-line verdict.")


class Report(Model):
    kind: Literal["diff", "check"] = Field(description="Which command produced the report.")
    target: Target = Field(description="Reproduction target the severities are for.")
    a: str | None = Field(default=None, description="Label or path of side A.")
    b: str | None = Field(default=None, description="Label or path of side B.")
    summary: Summary = Field(description="Counts and verdict.")
    findings: list[Finding] = Field(description="Findings, most severe first.")

    def reaches(self, threshold: str) -> bool:
        """For --fail-on: True when any difference is at least as severe as `threshold`, or, for
        a rule id (current or former), when a finding of that rule's cause is reported. A risk both
        sides share is not a difference between them: only its rule id trips the gate."""
        if threshold in SEVERITY_RANK:
            limit = SEVERITY_RANK[threshold]
            return any(
                SEVERITY_RANK[f.severity] >= limit for f in self.findings if f.basis != "shared"
            )
        from envsnap.diff.catalog import cause_name
        from envsnap.diff.catalog.aliases import canonical

        # A rule merged into a cause trips the gate when that cause's finding is reported.
        wanted = cause_name(canonical(threshold))
        return any(
            cause_name(canonical(f.rule)) == wanted
            or wanted in {cause_name(canonical(rule)) for rule in f.rules}
            for f in self.findings
        )


REPORT_SCHEMA_VERSION = "1"


def report_schema_document() -> dict[str, object]:
    """The JSON Schema of reports, as published in schemas/diff-report.v1.json."""
    from envsnap.manifest.sealed import published_schema

    return published_schema(
        Report,
        file="diff-report.v1.json",
        title="envsnap report",
        description=f"Ranked findings of `envsnap diff` or `envsnap check` (report schema "
        f"{REPORT_SCHEMA_VERSION}). Generated from envsnap's models; do not edit.",
    )


def report_schema_text() -> str:
    from envsnap.manifest.canonical import pretty_text

    return pretty_text(report_schema_document())


FindingT = TypeVar("FindingT", bound=Finding)


def severity_key(finding: Finding) -> tuple[int, int]:
    """Sort key: most severe first, then the heavier category (semantics before noise)."""
    return (-SEVERITY_RANK[finding.severity], -CATEGORY_WEIGHT[finding.category])


def numbered(findings: Iterable[FindingT]) -> list[FindingT]:
    """The findings with `rank` set to 1, 2, ... in the order given."""
    return [f.model_copy(update={"rank": i}) for i, f in enumerate(findings, start=1)]


def severity_counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    """How many findings there are of each severity (every severity present, zeros included)."""
    counts: dict[Severity, int] = {name: 0 for name in SEVERITIES}
    for finding in findings:
        counts[finding.severity] += 1
    return counts
