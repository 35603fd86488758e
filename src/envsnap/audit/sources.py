"""What `envsnap audit` reads: manifest files, cluster manifests, and directories of either.

A cluster manifest is audited rank by rank (each rank's document rebuilt from the shared one
and its deviations), and a finding lists the ranks it applies to, since one rank on another GPU
or library build can be the only one exposed to a bug.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from envsnap.audit.database import Database
from envsnap.audit.engine import audit_document, sort_key
from envsnap.audit.results import AuditFinding, AuditResult
from envsnap.diff.report import Target
from envsnap.errors import EnvsnapError


def expand(paths: Iterable[str]) -> Iterator[str]:
    """Files as given, and every `*.json` under a directory (sorted, walked lazily)."""
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path)
        else:
            yield path


def _walk(directory: str) -> Iterator[str]:
    with os.scandir(directory) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(entry.path)
        elif entry.name.endswith(".json") and entry.is_file():
            yield entry.path


def _merge_ranks(per_rank: dict[int, list[AuditFinding]]) -> list[AuditFinding]:
    merged: dict[str, AuditFinding] = {}
    ranks: dict[str, list[int]] = {}
    for rank, findings in sorted(per_rank.items()):
        for finding in findings:
            kept = merged.setdefault(finding.id, finding)
            if finding.status == "affected" and kept.status != "affected":
                merged[finding.id] = finding
            ranks.setdefault(finding.id, []).append(rank)
    return sorted(
        (f.model_copy(update={"ranks": ranks[f.id]}) for f in merged.values()), key=sort_key
    )


def audit_parsed(
    document: dict[str, Any],
    source: str,
    database: Database,
    target: Target,
    ignore: Sequence[str],
) -> AuditResult:
    """Audit one parsed manifest or cluster manifest, validated as `show` and `diff` do: a
    manifest this envsnap would refuse elsewhere is refused here too, with one line."""
    from envsnap.diff.cluster.model import cluster_from_document, is_cluster_document
    from envsnap.manifest.model import check_document

    if not is_cluster_document(document):
        check_document(document, source)
        findings = audit_document(document, database, target=target, ignore=ignore)
        return AuditResult(source=source, kind="manifest", target=target, findings=findings)
    from envsnap.diff.cluster.build import rank_documents

    cluster = cluster_from_document(document, source)
    if cluster.shared is not None:
        check_document(dict(cluster.shared), source)
    per_rank = {
        rank: audit_document(doc, database, target=target, ignore=ignore)
        for rank, doc in rank_documents(cluster).items()
    }
    return AuditResult(
        source=source, kind="cluster", target=target, findings=_merge_ranks(per_rank)
    )


def audit_path(path: str, database: Database, target: Target, ignore: Sequence[str]) -> AuditResult:
    """Audit one file; unreadable or invalid input raises a one-line `EnvsnapError`."""
    from envsnap.manifest.model import read_document

    return audit_parsed(read_document(path), path, database, target, ignore)


def audit_path_safely(
    path: str, database: Database, target: Target, ignore: Sequence[str]
) -> AuditResult:
    """Like `audit_path`, but a bad file becomes a result with `error` set (many-file runs)."""
    try:
        return audit_path(path, database, target, ignore)
    except EnvsnapError as exc:
        return AuditResult(source=path, kind="manifest", target=target, findings=[], error=str(exc))
