"""What an audit returns: findings per manifest, as pydantic models (the JSON output)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from envsnap.diff.report import SEVERITY_RANK, Category, Severity, Target
from envsnap.manifest.sections.base import Model

Status = Literal["affected", "possible"]


class FactMatch(Model):
    fact: str = Field(description="Fact the advisory's condition read.")
    test: str = Field(description="The test, as written in the advisory.")
    values: list[JsonValue] | None = Field(
        description="The manifest's values for the fact; null when it was not captured."
    )
    outcome: bool | None = Field(description="Test result; null when the fact is unknown.")
    deciding: list[JsonValue] | None = Field(
        default=None,
        description="For a test that passed on one of several values (one per ISA flag, say): "
        "the first value that passed; null when every value counts.",
    )


class AuditFinding(Model):
    id: str = Field(description="Advisory id (ENVSNAP-YYYY-NNNN).")
    aliases: list[str] = Field(default_factory=list, description="Other ids of the advisory.")
    status: Status = Field(
        description="'affected': every condition holds; 'possible': none fails but some "
        "fact was not captured."
    )
    severity: Severity = Field(description="Severity for the audit's target.")
    severities: dict[Target, Severity] = Field(description="Severity per reproduction target.")
    category: Category = Field(description="What kind of cause this is.")
    summary: str = Field(description="One line: what goes wrong.")
    details: str = Field(description="What goes wrong and when, in more words.")
    packages: dict[str, str | None] = Field(
        description="Affected package -> the version this manifest has (null if unknown)."
    )
    facts: list[FactMatch] = Field(description="Why it applies: the facts that were read.")
    fixed: list[str] = Field(description="'package version' that fix it.")
    workaround: str = Field(description="What to do until upgrading.")
    references: list[str] = Field(description="Upstream issues, PRs and release notes.")
    ranks: list[int] | None = Field(
        default=None, description="For a cluster manifest: the ranks it applies to."
    )


class AuditResult(Model):
    source: str = Field(description="The manifest audited (path or label).")
    kind: Literal["manifest", "cluster"] = Field(description="What the source was.")
    target: Target = Field(description="Reproduction target the severities are for.")
    findings: list[AuditFinding] = Field(description="Most severe first.")
    error: str | None = Field(default=None, description="Why the source could not be audited.")

    def affected(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.status == "affected"]

    def reaches(self, threshold: Severity) -> bool:
        """True when an applicable advisory is at or above the threshold."""
        floor = SEVERITY_RANK[threshold]
        return any(SEVERITY_RANK[f.severity] >= floor for f in self.affected())
