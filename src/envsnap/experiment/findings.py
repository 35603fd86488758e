"""The one place that reads the differ's findings: candidates for an experiment, in rank order.

A finding names the manifest paths it rests on through `evidence` when the differ provides it,
else through its single `path`; nothing else here depends on the finding's shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RankedPath:
    rank: int
    path: str
    title: str


def finding_paths(finding: Any) -> list[str]:
    """The manifest paths a finding is evidence about."""
    evidence = getattr(finding, "evidence", None)
    paths: list[str] = []
    for item in evidence or ():
        path = item.get("path") if isinstance(item, dict) else getattr(item, "path", item)
        if isinstance(path, str):
            paths.append(path)
    return paths or [str(finding.path)]


def ranked_paths(doc_a: dict[str, Any], doc_b: dict[str, Any]) -> Iterator[RankedPath]:
    """Every path the differ's findings rest on, most likely to matter first."""
    from envsnap.diff.rank import diff_documents

    report = diff_documents(doc_a, doc_b, target="close")
    for finding in report.findings:
        if finding.category == "noise":
            continue  # bookkeeping (durations, pids, times): neither a candidate nor worth listing
        for path in finding_paths(finding):
            yield RankedPath(finding.rank, path, finding.title)


def not_applicable_here(recorded: dict[str, Any], here: dict[str, Any]) -> list[str]:
    """The differences between a recorded run and this machine that cannot be applied, each
    worded with those two sides (never "A" and "B")."""
    from envsnap.diff.rank import diff_documents
    from envsnap.diff.sides import Sides

    sides = Sides("in the recorded run", "on this machine", phrases=True)
    return not_applicable(diff_documents(recorded, here, sides=sides).findings)


def not_applicable(findings: Iterable[Any]) -> list[str]:
    """The findings none of whose evidence can be applied here, in rank order, each with why.

    A finding with any applicable path (the seed finding's master seed beside its RNG state
    digests) is applied through that path, so it is not listed.
    """
    from envsnap.experiment.conditions import keys_for_path, why_not_applicable

    lines = []
    for finding in findings:
        if finding.rule == "uncaptured" or finding.category == "noise":
            continue  # not recorded on one side (torch not imported), or bookkeeping
        paths = finding_paths(finding)
        if not any(keys_for_path(path) for path in paths):
            lines.append(f"{finding.title} ({why_not_applicable(paths[0])})")
    return lines
