"""The differ's hook: an advisory that applies to exactly one side is a finding of its own.

It is the most specific cause a diff can name, so each hit carries the advisory's own
severities; 'possible' (a fact one side lacks) is not counted as applying. Only a package
version difference makes one: a release inside a known bug window is a cause no other rule
names, while an advisory that flips with a setting, GPU or variable would repeat the finding
that names that difference (one finding per cause).
"""

from __future__ import annotations

from typing import Any

from envsnap.audit.database import Advisory, bundled
from envsnap.audit.facts import normalize, package_version
from envsnap.audit.scan import scan
from envsnap.diff.derived import Hit
from envsnap.diff.report import TARGETS


def version_path(advisory: Advisory, a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The affected package whose version differs between the sides, as a manifest path."""
    for name, _ in advisory.packages:
        if package_version(a, name) != package_version(b, name):
            return f"packages.installed.{normalize(name)}"
    return None


def _applying(doc: dict[str, Any]) -> set[str]:
    return {hit.id for hit in scan(bundled().plan(), doc) if hit.affected}


def advisory_hits(a: dict[str, Any], b: dict[str, Any]) -> list[Hit]:
    """One `advisory.one-side` hit per advisory that applies to one side only."""
    in_a, in_b = _applying(a), _applying(b)
    hits = []
    for advisory in bundled().advisories:
        if (advisory.id in in_a) == (advisory.id in in_b):
            continue
        path = version_path(advisory, a, b)
        if path is None:
            # The advisory flips with a setting, GPU or variable the differ already names as
            # the cause; `envsnap audit` of each side shows the advisory itself.
            continue
        side = "A" if advisory.id in in_a else "B"
        names = ", ".join(name for name, _ in advisory.packages)
        severity = advisory.envsnap.severity
        hits.append(
            Hit(
                "advisory.one-side",
                path,
                "applies" if side == "A" else "does not apply",
                "applies" if side == "B" else "does not apply",
                title=f"{advisory.id} applies to {side} only ({names}): {advisory.record.summary}",
                severity=(severity[TARGETS[0]], severity[TARGETS[1]], severity[TARGETS[2]]),
            )
        )
    return hits
