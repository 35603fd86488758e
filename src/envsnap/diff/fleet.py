"""`envsnap fleet`: group many manifests into classes of identical result-relevant content.

Two manifests fall in the same class when they agree on everything that can change results:
noise (the differ's notion: timestamps, pids, durations, hostnames...) and each process's own
rank are left out. The largest class is the reference; every other class is set apart from it
by the differences the differ finds between their representatives, ranked by its rules, and its
members are the odd ones out. A cluster manifest counts as one member per successful rank.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from envsnap.diff.report import Finding, Target
from envsnap.errors import ManifestError
from envsnap.manifest.canonical import canonical_bytes
from envsnap.manifest.sections.base import Model


class FleetClass(Model):
    id: int = Field(description="1-based class number; 1 is the reference (the largest class).")
    size: int = Field(description="Number of members.")
    fingerprint: str = Field(description="sha256 of the class's result-relevant content.")
    reference: bool = Field(description="True for the reference class.")
    members: list[str] = Field(description="Sources of the members, sorted.")
    hosts: list[str] = Field(description="Hosts of the members, sorted, each once.")
    differences: list[Finding] = Field(
        description="What sets this class apart from the reference, most severe first "
        "(a: reference value, b: this class's value); empty for the reference."
    )


class FleetReport(Model):
    kind: Literal["fleet"] = Field(default="fleet", description="Marks a fleet report.")
    target: Target = Field(description="Reproduction target the severities are for.")
    total: int = Field(description="Number of manifests compared.")
    classes: list[FleetClass] = Field(description="Equivalence classes, largest first.")
    odd_ones_out: list[str] = Field(
        description="Members outside the reference class, sorted by source."
    )


# More manifests than any fleet holds: a bound on a walk pointed at the wrong directory.
MAX_MANIFESTS = 100_000


def manifest_paths(
    inputs: Iterable[str | os.PathLike[str]], *, limit: int = MAX_MANIFESTS
) -> list[Path]:
    """Expand FILES and DIRs (every *.json file below them, sorted) into manifest paths.

    Symlinked directories are not followed (no loops, nothing outside the tree); more than
    `limit` files in all is an error rather than an unbounded read.
    """
    found: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found.extend(_json_files_below(path, limit - len(found)))
        elif path.exists():
            found.append(path)
        else:
            raise ManifestError(f"{item}: no such file or directory")
        if len(found) > limit:
            raise ManifestError(f"more than {limit} manifests to compare; name fewer inputs")
    if not found:
        raise ManifestError("no manifests to compare (directories hold no *.json files)")
    return found


def _json_files_below(root: Path, limit: int) -> list[Path]:
    """The regular *.json files under `root` (at most `limit` + 1), sorted by path."""
    found: list[Path] = []
    pending = [root]
    while pending and len(found) <= limit:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                listing = list(entries)
        except OSError as exc:
            raise ManifestError(f"{directory}: cannot list ({exc.strerror or exc})") from None
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.name.endswith(".json") and entry.is_file():
                found.append(Path(entry.path))
    return sorted(found)


def load_members(paths: Sequence[str | os.PathLike[str]]) -> list[tuple[str, dict[str, Any]]]:
    """(source, manifest document) for every file; a cluster manifest yields each rank."""
    from envsnap.diff.cluster import cluster_from_document, is_cluster_document, rank_documents
    from envsnap.manifest.model import manifest_from_document, read_document

    members: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        document = read_document(path)
        if is_cluster_document(document):
            cluster = cluster_from_document(document, str(path))
            for rank, rank_doc in rank_documents(cluster).items():
                members.append((f"{path}#rank{rank}", rank_doc))
        else:
            manifest_from_document(document, str(path))
            members.append((str(path), document))
    return members


def _relevant_hash(name: str, section: Any, per_rank_seeds: bool) -> str:
    from envsnap.diff.cluster.paths import flatten
    from envsnap.diff.cluster.relevance import is_comparable

    kept = sorted(
        (
            (path, value)
            for path, value in flatten({name: section}).items()
            if is_comparable(path, per_rank_seeds=per_rank_seeds)
        ),
        key=itemgetter(0),
    )
    return hashlib.sha256(canonical_bytes(kept)).hexdigest()


def relevant_fingerprint(document: dict[str, Any], memo: dict[Any, str] | None = None) -> str:
    """sha256 over the result-relevant leaves of a manifest document.

    Computed per top-level section; `memo` remembers the result per section content, so a
    section that many manifests share (packages, above all) is only walked once per fleet.
    """
    from envsnap.diff.cluster.relevance import per_rank_seeds_declared

    memo = {} if memo is None else memo
    per_rank_seeds = per_rank_seeds_declared([document])
    parts: list[tuple[str, str]] = []
    for name in sorted(document):
        key = (name, per_rank_seeds, canonical_bytes(document[name]))
        digest = memo.get(key)
        if digest is None:
            digest = memo[key] = _relevant_hash(name, document[name], per_rank_seeds)
        parts.append((name, digest))
    return hashlib.sha256(canonical_bytes(parts)).hexdigest()


def _differences(reference: dict[str, Any], other: dict[str, Any], target: Target) -> list[Finding]:
    from envsnap.diff.cluster.ranking import relevant_findings
    from envsnap.diff.cluster.relevance import per_rank_seeds_declared

    expected = per_rank_seeds_declared([reference, other])
    return relevant_findings(reference, other, target, per_rank_seeds=expected)


def group_fleet(
    members: Sequence[tuple[str, dict[str, Any]]], *, target: Target = "close"
) -> FleetReport:
    """Group member documents into equivalence classes and explain the minority classes."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    memo: dict[Any, str] = {}
    for source, document in members:
        groups.setdefault(relevant_fingerprint(document, memo), []).append((source, document))
    # Largest first; equal sizes by their first member's source, so the order is stable.
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), min(s for s, _ in item[1])))
    reference_doc = ordered[0][1][0][1] if ordered else {}
    classes: list[FleetClass] = []
    for index, (fingerprint, group) in enumerate(ordered, start=1):
        is_reference = index == 1
        sources = sorted(source for source, _ in group)
        hosts = {
            str(host)
            for _, document in group
            if (host := (document.get("system") or {}).get("hostname"))
        }
        classes.append(
            FleetClass(
                id=index,
                size=len(group),
                fingerprint=f"sha256:{fingerprint}",
                reference=is_reference,
                members=sources,
                hosts=sorted(hosts),
                differences=[]
                if is_reference
                else _differences(reference_doc, group[0][1], target),
            )
        )
    odd = sorted(source for fleet_class in classes[1:] for source in fleet_class.members)
    return FleetReport(target=target, total=len(members), classes=classes, odd_ones_out=odd)


def fleet(inputs: Iterable[str | os.PathLike[str]], *, target: Target = "close") -> FleetReport:
    """Read FILES/DIRs of manifests and group them (the `envsnap fleet` command's work)."""
    return group_fleet(load_members(manifest_paths(inputs)), target=target)
