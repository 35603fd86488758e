"""Many ranks, one record: cluster manifests for distributed jobs.

- `capture_distributed(path=None, **capture_kwargs)`: gather every rank's manifest to rank 0.
- `ClusterManifest`: shared content once, per-rank deviations, host map, failed ranks, findings.
- `build_cluster(captures)`, `assemble_files(paths)`: build one from documents or files.
- `load_cluster(path)`, `rank_documents(cluster)`, `verify_cluster(document, cluster)`.
- `as_diffable(document, source)`: what `envsnap diff` compares for a cluster manifest.
"""

from envsnap.diff.cluster.build import (
    RankCapture,
    build_cluster,
    rank_document,
    rank_documents,
    verify_cluster,
)
from envsnap.diff.cluster.gather import capture_distributed
from envsnap.diff.cluster.io import (
    Diffable,
    as_diffable,
    assemble_files,
    cluster_findings,
    load_cluster,
    with_cluster_findings,
)
from envsnap.diff.cluster.model import (
    CLUSTER_SCHEMA_VERSION,
    ClusterManifest,
    GatherInfo,
    HeterogeneityFinding,
    RankEntry,
    cluster_from_document,
    cluster_schema_document,
    cluster_schema_text,
    is_cluster_document,
)

__all__ = [
    "CLUSTER_SCHEMA_VERSION",
    "ClusterManifest",
    "Diffable",
    "GatherInfo",
    "HeterogeneityFinding",
    "RankCapture",
    "RankEntry",
    "as_diffable",
    "assemble_files",
    "build_cluster",
    "capture_distributed",
    "cluster_findings",
    "cluster_from_document",
    "cluster_schema_document",
    "cluster_schema_text",
    "is_cluster_document",
    "load_cluster",
    "rank_document",
    "rank_documents",
    "verify_cluster",
    "with_cluster_findings",
]
