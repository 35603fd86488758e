"""Cluster manifests built from real captured manifests: storage, rebuild, seals, diffing."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff.cluster import (
    GatherInfo,
    RankCapture,
    as_diffable,
    build_cluster,
    cluster_from_document,
    cluster_schema_text,
    rank_documents,
    verify_cluster,
    with_cluster_findings,
)
from envsnap.diff.cluster.paths import dotted, flatten, parse_dotted, unflatten
from envsnap.errors import ManifestError
from envsnap.manifest.canonical import digest_of
from envsnap.manifest.model import Manifest
from tests.helpers import REPO_ROOT, CliResult
from tests.helpers.schemas import published_schema_bytes


@pytest.fixture(scope="module")
def base_document() -> dict[str, Any]:
    from envsnap.capturing.api import capture

    return capture(only=["python", "packages", "system", "env"]).to_document()


def rank_doc(base: dict[str, Any], rank: int, **env: str) -> dict[str, Any]:
    document = copy.deepcopy(base)
    document["run"]["pid"] = 1000 + rank
    document["system"]["hostname"] = f"node-{rank // 2}"
    document["env"]["variables"].update(RANK=str(rank), **env)
    document["digest"] = digest_of(document)
    return Manifest.model_validate(document).to_document()


def cluster_of(documents: list[dict[str, Any]]) -> Any:
    captures = [
        RankCapture(rank, doc["system"]["hostname"], doc) for rank, doc in enumerate(documents)
    ]
    return build_cluster(captures, gather=GatherInfo(source="files"))


def test_paths_round_trip() -> None:
    document = {"a": {"b.c": {"d": 1}, "e": [], "f": {}}, 'q"\\': None, "x": {"y": [1, {"z": 2}]}}
    leaves = flatten(document)
    assert unflatten(leaves) == document
    for path in leaves:
        assert parse_dotted(dotted(path)) == path


def test_shared_content_is_stored_once_and_ranks_rebuild_exactly(
    base_document: dict[str, Any],
) -> None:
    documents = [rank_doc(base_document, r) for r in range(6)]
    cluster = cluster_of(documents)
    document = cluster.to_document()
    assert verify_cluster(document, cluster) == []
    assert rank_documents(cluster) == dict(enumerate(documents))
    # Each rank stores only its pid, RANK, host, timestamp-free bookkeeping and digest.
    assert all(len(entry.deviations) <= 4 for entry in cluster.ranks)
    assert cluster.hosts == {"node-0": [0, 1], "node-1": [2, 3], "node-2": [4, 5]}
    assert cluster.findings == []


def test_representative_is_a_majority_rank_not_the_odd_one(base_document: dict[str, Any]) -> None:
    documents = [
        rank_doc(base_document, r, **({"OMP_NUM_THREADS": "8"} if r == 0 else {})) for r in range(4)
    ]
    cluster = cluster_of(documents)
    assert cluster.representative_rank == 1
    [finding] = cluster.findings
    assert (finding.path, finding.ranks, finding.hosts) == (
        "env.variables.OMP_NUM_THREADS",
        [0],
        ["node-0"],
    )
    assert finding.rule.startswith("env.")


def test_identical_deviations_on_several_ranks_are_one_finding(
    base_document: dict[str, Any],
) -> None:
    documents = [
        rank_doc(base_document, r, **({"NCCL_ALGO": "Tree"} if r in (2, 3) else {}))
        for r in range(5)
    ]
    [finding] = cluster_of(documents).findings
    assert finding.ranks == [2, 3]
    assert "ranks 2, 3 on node-1" in finding.title


def test_tampered_cluster_is_detected(base_document: dict[str, Any]) -> None:
    cluster = cluster_of([rank_doc(base_document, r) for r in range(2)])
    document = json.loads(cluster.to_json())
    document["ranks"][1]["deviations"]["run.pid"] = 7
    assert verify_cluster(document, cluster_from_document(document, "x")) == [
        "cluster content does not match its digest",
        "rank 1: rebuilt manifest does not match its digest",
    ]


def test_failed_and_missing_ranks_are_recorded(base_document: dict[str, Any]) -> None:
    captures = [
        RankCapture(0, "node-0", rank_doc(base_document, 0)),
        RankCapture(1, "node-0", None, "capture raised RuntimeError: boom"),
    ]
    cluster = build_cluster(captures, world_size=3, gather=GatherInfo(source="files"))
    assert cluster.failed_ranks == [1, 2]
    assert cluster.ranks[2].reason == "no manifest received from this rank"
    assert cluster.hosts == {"?": [2], "node-0": [0, 1]}


def test_unknown_cluster_version_is_refused() -> None:
    with pytest.raises(ManifestError, match="unknown cluster manifest schema version"):
        cluster_from_document({"kind": "envsnap-cluster", "schema_version": "9.0"}, "c.json")


def test_cluster_vs_single_diff_reports_deviating_ranks(base_document: dict[str, Any]) -> None:
    from envsnap.diff import diff_documents

    documents = [
        rank_doc(base_document, r, **({"OMP_NUM_THREADS": "8"} if r == 3 else {})) for r in range(4)
    ]
    cluster_doc = cluster_of(documents).to_document()
    single = rank_doc(base_document, 0, CUBLAS_WORKSPACE_CONFIG=":4096:8")
    a, b = as_diffable(cluster_doc, "cluster.json"), as_diffable(single, "single.json")
    assert a.label.startswith("cluster.json (rank 0 on node-0 of 4)")
    report = with_cluster_findings(diff_documents(a.document, b.document), a, b)
    titles = [f.title for f in report.findings]
    assert any("CUBLAS_WORKSPACE_CONFIG" in f.path for f in report.findings)
    assert any(t.startswith("A cluster: ") and "rank 3 on node-1" in t for t in titles)
    assert [f.rank for f in report.findings] == list(range(1, len(titles) + 1))


def test_target_reaches_the_cluster_findings_of_a_diff(
    base_document: dict[str, Any], tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    """OMP_NUM_THREADS is high for bitwise, low for close: the cluster was built for close."""
    documents = [
        rank_doc(base_document, r, **({"OMP_NUM_THREADS": "8"} if r == 3 else {})) for r in range(4)
    ]
    cluster_path, single_path = tmp_path / "cluster.json", tmp_path / "single.json"
    cluster_path.write_text(cluster_of(documents).to_json())
    single_path.write_text(json.dumps(rank_doc(base_document, 0)))

    def cluster_severity(target: str) -> str:
        result = run_cli(
            "diff", str(cluster_path), str(single_path), "--target", target, "-f", "json"
        )
        [finding] = [
            f for f in json.loads(result.out)["findings"] if f["title"].startswith("A cluster: ")
        ]
        assert finding["path"] == "env.variables.OMP_NUM_THREADS"
        return str(finding["severity"])

    assert cluster_severity("close") == "low"
    assert cluster_severity("bitwise") == "high"


@published_schema_bytes
def test_cluster_schema_file_matches_models() -> None:
    published = REPO_ROOT / "schemas" / "cluster.v1.json"
    assert published.read_text(encoding="utf-8") == cluster_schema_text(), (
        "schemas/cluster.v1.json is stale: regenerate it from envsnap.diff.cluster.cluster_schema_text()"
    )


def test_cluster_document_validates_against_published_schema(
    base_document: dict[str, Any],
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO_ROOT / "schemas" / "cluster.v1.json").read_text())
    cluster = cluster_of([rank_doc(base_document, r) for r in range(2)])
    jsonschema.validate(cluster.to_document(), schema)


def test_cluster_and_fleet_findings_carry_the_same_severities_as_diff() -> None:
    """Between two CPU-only runs a cuBLAS variable cannot act: info in `diff`, and so in the
    findings fleet and cluster reports rank."""
    from envsnap.diff import diff_documents
    from envsnap.diff.cluster.ranking import relevant_findings
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    for doc in (a, b):
        doc["precision"]["device"] = "cpu"
    b["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
    in_diff = {f.rule: f.severity for f in diff_documents(a, b).findings}
    in_fleet = {f.rule: f.severity for f in relevant_findings(a, b, "close", per_rank_seeds=False)}
    assert in_diff["algo.cublas-workspace"] == "info"
    assert in_fleet["algo.cublas-workspace"] == in_diff["algo.cublas-workspace"]
