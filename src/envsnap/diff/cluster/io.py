"""Cluster manifests as files: load, assemble from per-rank files, and prepare for diffing."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
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
from envsnap.diff.findings import make_report
from envsnap.diff.report import Finding, Report, Target, severity_key
from envsnap.errors import ManifestError
from envsnap.manifest.model import check_document, manifest_from_document, read_document


def load_cluster(path: str | os.PathLike[str]) -> ClusterManifest:
    """Read and validate a cluster manifest file (one-line `ManifestError`)."""
    document = read_document(path)
    if not is_cluster_document(document):
        raise ManifestError(f"{path}: not a cluster manifest (no kind 'envsnap-cluster')")
    return cluster_from_document(document, str(path))


def _slurm(document: dict[str, Any]) -> dict[str, Any]:
    """The SLURM allocation a capture recorded (empty outside SLURM)."""
    return ((document.get("placement") or {}).get("slurm")) or {}


def _count(*values: Any) -> int | None:
    for value in values:
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            return int(value)
    return None


def _rank_of(document: dict[str, Any]) -> int | None:
    """The capture's global rank: torch.distributed or torchrun's, else SLURM's task id (an
    `srun envsnap capture` on every node has no process group)."""
    variables = (document.get("env") or {}).get("variables") or {}
    return _count(
        (document.get("parallel") or {}).get("rank"),
        variables.get("RANK"),
        _slurm(document).get("procid"),
        variables.get("SLURM_PROCID"),
    )


def _world_size(documents: Sequence[dict[str, Any]]) -> int | None:
    """The job's task count as the captures state it, so a task that wrote nothing is
    recorded as failed rather than missed."""
    sizes = [
        _count((doc.get("parallel") or {}).get("world_size"), _slurm(doc).get("ntasks"))
        for doc in documents
    ]
    return max((size for size in sizes if size is not None), default=None)


def _host_of(document: dict[str, Any]) -> str | None:
    host = (document.get("system") or {}).get("hostname") or _slurm(document).get("node_name")
    return host if isinstance(host, str) else None


def assemble_files(
    paths: Sequence[str | os.PathLike[str]], *, target: Target = "close"
) -> ClusterManifest:
    """Build a cluster manifest from one manifest file per rank.

    A file's rank is read from its parallel section, its RANK variable or its SLURM task id
    (SLURM_PROCID, as `srun envsnap capture` on N nodes writes them); without any, files are
    numbered in the order given. Ranks below the recorded task count that no file holds are
    recorded as failed.
    """
    documents = []
    for path in paths:
        document = read_document(path)
        manifest_from_document(document, str(path))
        documents.append(document)
    ranks = [_rank_of(document) for document in documents]
    world_size = _world_size(documents)
    if None in ranks or len(set(ranks)) != len(ranks):
        ranks, world_size = list(range(len(documents))), None
    captures = [
        RankCapture(rank or 0, _host_of(doc), doc)
        for rank, doc in zip(ranks, documents, strict=True)
    ]
    return build_cluster(
        captures, world_size=world_size, gather=GatherInfo(source="files"), target=target
    )


@dataclass(frozen=True)
class Diffable:
    """What `envsnap diff` compares for one side: a manifest, plus a cluster's own findings."""

    document: dict[str, Any]
    label: str
    cluster: ClusterManifest | None = None
    findings: list[HeterogeneityFinding] = field(default_factory=list)


def as_diffable(
    document: dict[str, Any], source: str, *, known_valid: Collection[int] = ()
) -> Diffable:
    """A single manifest as is; a cluster manifest as its representative rank's manifest,
    with the cluster's heterogeneity findings (the ranks that deviate from it).

    The manifest is validated, but its model is not kept: the document is what is compared.
    `known_valid`: ids of package entries shared with a document validated before.
    """
    if not is_cluster_document(document):
        check_document(document, source, known_valid=known_valid)
        return Diffable(document, source)
    cluster = cluster_from_document(document, source)
    if cluster.shared is None or cluster.representative_rank is None:
        raise ManifestError(f"{source}: cluster manifest has no rank to compare (all failed)")
    shared = dict(cluster.shared)
    check_document(shared, source)
    rank = cluster.representative_rank
    host = cluster.ranks[rank].host or "?"
    label = f"{source} (rank {rank} on {host} of {cluster.world_size})"
    return Diffable(shared, label, cluster, list(cluster.findings))


def cluster_findings(cluster: ClusterManifest, target: Target) -> list[HeterogeneityFinding]:
    """The cluster's own findings with severities for `target`.

    Stored findings are for the target the cluster was built with; for another target they
    are found again from the ranks, by the same differ (whether ranks should have distinct
    seeds is then inferred from their seeds sections).
    """
    if cluster.target == target or cluster.representative_rank is None:
        return list(cluster.findings)
    from envsnap.diff.cluster.build import rank_documents
    from envsnap.diff.cluster.heterogeneity import heterogeneity_findings

    hosts = {entry.rank: entry.host for entry in cluster.ranks}
    documents = rank_documents(cluster)
    return heterogeneity_findings(cluster.representative_rank, documents, hosts, target=target)


def with_cluster_findings(report: Report, a: Diffable, b: Diffable) -> Report:
    """Add each cluster side's deviating ranks to a diff report, re-ranked with the rest.

    Their severities are for the report's target. Their titles say which side they belong
    to; `a`/`b` of such a finding are the representative's value and the deviating ranks'
    value on that side.
    """
    extra: list[Finding] = []
    for side, diffable in (("A", a), ("B", b)):
        own = (
            cluster_findings(diffable.cluster, report.target)
            if diffable.cluster is not None
            else diffable.findings
        )
        extra.extend(
            Finding.model_validate(
                {
                    **deviation.model_dump(include=set(Finding.model_fields)),
                    "title": f"{side} cluster: {deviation.title}",
                }
            )
            for deviation in own
        )
    if not extra:
        return report
    verdict = f"{report.summary.verdict}; {len(extra)} from ranks deviating within a cluster"
    return make_report(
        report.kind,
        report.target,
        sorted([*report.findings, *extra], key=severity_key),
        lambda _findings: verdict,
        a=a.label,
        b=b.label,
    )
