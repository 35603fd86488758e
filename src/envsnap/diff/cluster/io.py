"""Cluster manifests as files: load, assemble from per-rank files, and prepare for diffing."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from envsnap.diff.cluster.build import RankCapture, build_cluster
from envsnap.diff.cluster.model import (
    ClusterManifest,
    GatherInfo,
    HeterogeneityFinding,
    cluster_from_document,
    is_cluster_document,
)
from envsnap.diff.report import (
    Finding,
    Report,
    Summary,
    Target,
    numbered,
    severity_counts,
    severity_key,
)
from envsnap.errors import ManifestError
from envsnap.manifest.model import Manifest, manifest_from_document, read_document


def load_cluster(path: str | os.PathLike[str]) -> ClusterManifest:
    """Read and validate a cluster manifest file (one-line `ManifestError`)."""
    document = read_document(path)
    if not is_cluster_document(document):
        raise ManifestError(f"{path}: not a cluster manifest (no kind 'envsnap-cluster')")
    return cluster_from_document(document, str(path))


def _rank_of(document: dict[str, Any]) -> int | None:
    for value in (
        (document.get("parallel") or {}).get("rank"),
        ((document.get("env") or {}).get("variables") or {}).get("RANK"),
    ):
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            return int(value)
    return None


def assemble_files(
    paths: Sequence[str | os.PathLike[str]], *, target: Target = "close"
) -> ClusterManifest:
    """Build a cluster manifest from one manifest file per rank.

    A file's rank is read from its parallel section or its RANK variable; without either,
    files are numbered in the order given.
    """
    documents = []
    for path in paths:
        document = read_document(path)
        manifest_from_document(document, str(path))
        documents.append(document)
    ranks = [_rank_of(document) for document in documents]
    if None in ranks or len(set(ranks)) != len(ranks):
        ranks = list(range(len(documents)))
    captures = [
        RankCapture(rank or 0, ((doc.get("system") or {}).get("hostname")), doc)
        for rank, doc in zip(ranks, documents, strict=True)
    ]
    return build_cluster(captures, gather=GatherInfo(source="files"), target=target)


@dataclass(frozen=True)
class Diffable:
    """What `envsnap diff` compares for one side: a manifest, plus a cluster's own findings."""

    manifest: Manifest
    document: dict[str, Any]
    label: str
    cluster: ClusterManifest | None = None
    findings: list[HeterogeneityFinding] = field(default_factory=list)


def as_diffable(document: dict[str, Any], source: str) -> Diffable:
    """A single manifest as is; a cluster manifest as its representative rank's manifest,
    with the cluster's heterogeneity findings (the ranks that deviate from it)."""
    if not is_cluster_document(document):
        return Diffable(manifest_from_document(document, source), document, source)
    cluster = cluster_from_document(document, source)
    if cluster.shared is None or cluster.representative_rank is None:
        raise ManifestError(f"{source}: cluster manifest has no rank to compare (all failed)")
    shared = dict(cluster.shared)
    manifest = manifest_from_document(shared, source)
    rank = cluster.representative_rank
    host = cluster.ranks[rank].host or "?"
    label = f"{source} (rank {rank} on {host} of {cluster.world_size})"
    return Diffable(manifest, shared, label, cluster, list(cluster.findings))


def with_cluster_findings(report: Report, a: Diffable, b: Diffable) -> Report:
    """Add each cluster side's deviating ranks to a diff report, re-ranked with the rest.

    Their titles say which side they belong to; `a`/`b` of such a finding are the
    representative's value and the deviating ranks' value on that side.
    """
    extra: list[Finding] = []
    for side, diffable in (("A", a), ("B", b)):
        for deviation in diffable.findings:
            extra.append(
                Finding.model_validate(
                    {
                        **deviation.model_dump(include=set(Finding.model_fields)),
                        "title": f"{side} cluster: {deviation.title}",
                    }
                )
            )
    if not extra:
        return report
    findings = numbered(sorted([*report.findings, *extra], key=severity_key))
    counts = severity_counts(findings)
    verdict = f"{report.summary.verdict}; {len(extra)} from ranks deviating within a cluster"
    return report.model_copy(
        update={
            "a": a.label,
            "b": b.label,
            "findings": findings,
            "summary": Summary(counts=counts, verdict=verdict),
        }
    )
