"""The cluster manifest: every rank of one distributed job in one sealed document.

What all ranks share is stored once (`shared`, the manifest of the representative rank); each
rank then lists only where it deviates, as dotted path -> value, plus the paths it lacks. Rebuilding
a rank's manifest from `shared` and its deviations gives back its exact document, so each rank's
own digest can still be checked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, JsonValue

from envsnap._version import __version__
from envsnap.diff.report import Finding, Target
from envsnap.errors import ManifestError
from envsnap.manifest.canonical import pretty_text
from envsnap.manifest.seal_check import announce
from envsnap.manifest.sealed import SealedDocument, published_schema
from envsnap.manifest.sections.base import Model
from envsnap.manifest.validation import validate_one_line

CLUSTER_SCHEMA_VERSION = "1.0"
KNOWN_CLUSTER_SCHEMA_VERSIONS: tuple[str, ...] = ("1.0",)
CLUSTER_KIND = "envsnap-cluster"

RankStatus = Literal["ok", "failed"]
GatherSource = Literal["process_group", "files"]


class ClusterTool(Model):
    name: Literal["envsnap"] = Field(default="envsnap", description="Producing tool.")
    version: str = Field(default=__version__, description="envsnap version that wrote it.")


class GatherInfo(Model):
    source: GatherSource = Field(
        description="'process_group': gathered over torch.distributed by capture_distributed; "
        "'files': assembled from manifest files."
    )
    backend: str | None = Field(
        default=None, description="Backend of the job's default process group (nccl, gloo...)."
    )
    timeout_s: float | None = Field(
        default=None, description="Time limit of the gather; ranks not heard from are failed."
    )
    capture_limit_s: float | None = Field(
        default=None,
        description="Time each rank's own capture was allowed before it sent a failure record.",
    )
    max_manifest_bytes: int | None = Field(
        default=None, description="Largest rank manifest accepted; a larger one is a failure."
    )


class RankEntry(Model):
    rank: int = Field(description="Global rank.")
    host: str | None = Field(description="Host the rank ran on (null when unknown).")
    status: RankStatus = Field(
        description="'ok': its manifest is stored; 'failed': its capture raised, was too slow, "
        "too large or never arrived (see reason)."
    )
    reason: str | None = Field(default=None, description="Why the rank failed.")
    digest: str | None = Field(
        default=None, description="The rank manifest's own digest (null for failed ranks)."
    )
    deviations: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Dotted path -> value wherever this rank's manifest differs from 'shared' "
        "(noise such as timestamps and pids included, so the manifest can be rebuilt exactly).",
    )
    absent: list[str] = Field(
        default_factory=list,
        description="Dotted paths present in 'shared' that this rank's manifest lacks, sorted.",
    )


class HeterogeneityFinding(Finding):
    ranks: list[int] = Field(description="Ranks that deviate from the representative this way.")
    hosts: list[str] = Field(description="Hosts of those ranks, sorted, each once.")


class ClusterManifest(SealedDocument):
    """A distributed job's manifests: shared content once, per-rank deviations, findings."""

    schema_version: str = Field(
        default=CLUSTER_SCHEMA_VERSION, description="Cluster manifest schema version."
    )
    kind: Literal["envsnap-cluster"] = Field(
        default="envsnap-cluster", description="Marks a cluster manifest (vs a single one)."
    )
    tool: ClusterTool = Field(default_factory=ClusterTool, description="Producing tool.")
    created_at: datetime = Field(description="When the cluster manifest was assembled, UTC.")
    world_size: int = Field(description="Number of ranks in the job.")
    representative_rank: int | None = Field(
        description="Rank whose manifest is 'shared': the one closest to the per-path majority; "
        "null when every rank failed."
    )
    shared: dict[str, JsonValue] | None = Field(
        description="The representative rank's manifest document (schemas/manifest.v1.json), "
        "stored once; null when every rank failed."
    )
    ranks: list[RankEntry] = Field(description="One entry per rank, sorted by rank.")
    hosts: dict[str, list[int]] = Field(
        description="Host -> the ranks that ran on it, sorted; unknown hosts are '?'."
    )
    failed_ranks: list[int] = Field(description="Ranks whose manifest is missing, sorted.")
    target: Target = Field(description="Reproduction target the finding severities are for.")
    findings: list[HeterogeneityFinding] = Field(
        description="Result-relevant ways in which ranks disagree, most severe first, each "
        "naming its ranks and hosts."
    )
    gather: GatherInfo = Field(description="How the rank manifests were collected.")


def is_cluster_document(document: dict[str, Any]) -> bool:
    """True when a parsed JSON object is a cluster manifest rather than a single manifest."""
    return document.get("kind") == CLUSTER_KIND


def cluster_from_document(document: dict[str, Any], source: str) -> ClusterManifest:
    """Validate a parsed JSON object as a cluster manifest (one-line `ManifestError`)."""
    version = document.get("schema_version")
    if version not in KNOWN_CLUSTER_SCHEMA_VERSIONS:
        raise ManifestError(
            f"{source}: unknown cluster manifest schema version {version!r}; this envsnap reads "
            f"{', '.join(KNOWN_CLUSTER_SCHEMA_VERSIONS)}"
        )
    cluster = validate_one_line(
        ClusterManifest,
        document,
        error=ManifestError,
        context=f"{source}: not a valid envsnap cluster manifest",
    )
    if [entry.rank for entry in cluster.ranks] != list(range(cluster.world_size)):
        raise ManifestError(f"{source}: cluster manifest ranks are not 0..{cluster.world_size - 1}")
    announce(source)
    return cluster


def cluster_schema_document() -> dict[str, Any]:
    """The JSON Schema published as schemas/cluster.v1.json."""
    return published_schema(
        ClusterManifest,
        file="cluster.v1.json",
        title="envsnap cluster manifest",
        description=f"Every rank of a distributed job (schema {CLUSTER_SCHEMA_VERSION}): shared "
        "content once, per-rank deviations, failed ranks, heterogeneity findings. Generated from "
        "envsnap's models; do not edit.",
    )


def cluster_schema_text() -> str:
    return pretty_text(cluster_schema_document())
