"""Assemble a cluster manifest from per-rank manifest documents, and take it apart again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from envsnap.diff.cluster.model import ClusterManifest, GatherInfo, RankEntry
from envsnap.diff.cluster.paths import Leaves, dotted, flatten, parse_dotted, unflatten, value_key
from envsnap.diff.report import Target
from envsnap.manifest.canonical import digest_of
from envsnap.manifest.sealed import verify_document

UNKNOWN_HOST = "?"


@dataclass(frozen=True)
class RankCapture:
    """What one rank contributed: its manifest document, or why there is none."""

    rank: int
    host: str | None
    document: dict[str, Any] | None
    reason: str | None = None


def _representative(leaves: dict[int, Leaves]) -> int:
    """The rank closest to the majority: fewest result-relevant paths off the most common value
    (absence counts as a value).

    Values unique to every rank (pids, timestamps) have no majority and are not counted, so
    they cannot make an odd rank look central.
    """
    from envsnap.diff.cluster.relevance import is_noise

    absent = ("absent",)
    paths = {path for own in leaves.values() for path in own if not is_noise(path)}
    modal: dict[Any, Any] = {}
    for path in paths:
        counter = Counter(
            value_key(own[path]) if path in own else absent for own in leaves.values()
        )
        key, count = counter.most_common(1)[0]
        if count > 1:
            modal[path] = key

    def distance(rank: int) -> tuple[int, int]:
        own = leaves[rank]
        off = sum(
            1
            for path, key in modal.items()
            if (value_key(own[path]) if path in own else absent) != key
        )
        return (off, rank)

    return min(leaves, key=distance)


def _deviations(base: Leaves, own: Leaves) -> tuple[dict[str, Any], list[str]]:
    changed = {
        dotted(path): value
        for path, value in own.items()
        if path not in base or value_key(base[path]) != value_key(value)
    }
    absent = sorted(dotted(path) for path in base if path not in own)
    return dict(sorted(changed.items())), absent


def build_cluster(
    captures: Sequence[RankCapture],
    *,
    world_size: int | None = None,
    gather: GatherInfo,
    target: Target = "close",
    per_rank_seeds: bool | None = None,
) -> ClusterManifest:
    """Store what the ranks share once and each rank's deviations; find heterogeneity.

    Ranks missing from `captures` (below `world_size`) are recorded as failed.
    `per_rank_seeds`: whether ranks should have distinct seeds (None: infer from the seeds
    sections).
    """
    from envsnap.diff.cluster.heterogeneity import heterogeneity_findings

    by_rank = {capture.rank: capture for capture in captures}
    size = max(world_size or 0, max(by_rank, default=-1) + 1)
    documents = {
        rank: capture.document
        for rank, capture in sorted(by_rank.items())
        if capture.document is not None
    }
    leaves = {rank: flatten(document) for rank, document in documents.items()}
    representative = _representative(leaves) if leaves else None
    base = leaves[representative] if representative is not None else {}

    entries: list[RankEntry] = []
    hosts: dict[str, list[int]] = {}
    for rank in range(size):
        capture = by_rank.get(rank)
        host = capture.host if capture else None
        hosts.setdefault(host or UNKNOWN_HOST, []).append(rank)
        if capture is None or capture.document is None:
            reason = capture.reason if capture else "no manifest received from this rank"
            entries.append(RankEntry(rank=rank, host=host, status="failed", reason=reason))
            continue
        deviations, absent = _deviations(base, leaves[rank])
        digest = capture.document.get("digest")
        entries.append(
            RankEntry(
                rank=rank,
                host=host,
                status="ok",
                digest=digest if isinstance(digest, str) else None,
                deviations=deviations,
                absent=absent,
            )
        )

    rank_hosts = {entry.rank: entry.host for entry in entries}
    findings = (
        heterogeneity_findings(
            representative, documents, rank_hosts, target=target, per_rank_seeds=per_rank_seeds
        )
        if representative is not None
        else []
    )
    return ClusterManifest(
        created_at=datetime.now(timezone.utc),
        world_size=size,
        representative_rank=representative,
        shared=documents[representative] if representative is not None else None,
        ranks=entries,
        hosts=dict(sorted(hosts.items())),
        failed_ranks=[entry.rank for entry in entries if entry.status == "failed"],
        target=target,
        findings=findings,
        gather=gather,
    ).sealed()


def rank_document(cluster: ClusterManifest, rank: int) -> dict[str, Any] | None:
    """Rebuild one rank's manifest document exactly; None for a failed rank."""
    entry = cluster.ranks[rank]
    if entry.status != "ok" or cluster.shared is None:
        return None
    leaves = flatten(cluster.shared)
    for path in entry.absent:
        leaves.pop(parse_dotted(path), None)
    leaves.update((parse_dotted(path), value) for path, value in entry.deviations.items())
    return unflatten(leaves)


def rank_documents(cluster: ClusterManifest) -> dict[int, dict[str, Any]]:
    """Every successful rank's manifest document, keyed by rank."""
    out: dict[int, dict[str, Any]] = {}
    for entry in cluster.ranks:
        document = rank_document(cluster, entry.rank)
        if document is not None:
            out[entry.rank] = document
    return out


def verify_cluster(document: dict[str, Any], cluster: ClusterManifest) -> list[str]:
    """Problems with a cluster's seals: its own digest, and each rebuilt rank's digest."""
    problems: list[str] = []
    if not verify_document(document)[0]:
        problems.append("cluster content does not match its digest")
    for rank, rank_doc in rank_documents(cluster).items():
        entry = cluster.ranks[rank]
        if entry.digest != rank_doc.get("digest") or digest_of(rank_doc) != entry.digest:
            problems.append(f"rank {rank}: rebuilt manifest does not match its digest")
    return problems
