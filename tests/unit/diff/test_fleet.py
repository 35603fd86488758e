"""`envsnap fleet` over real manifest files: classes, odd ones out, formats, errors."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.manifest.canonical import digest_of
from tests.helpers import CliResult

ODD = {
    17: ("env", "variables", "OMP_NUM_THREADS", "16"),
    404: ("packages", "installed", "pygments", "version", "1.0.0"),
    999: ("python", "hash_randomization", False),
}


@pytest.fixture(scope="module")
def base_document() -> dict[str, Any]:
    from envsnap.capturing.api import capture

    return capture(only=["python", "packages", "system", "env"]).to_document()


def member(base: dict[str, Any], index: int) -> dict[str, Any]:
    """A manifest from another node: only noise differs (host, pid, time, durations, rank)."""
    document = copy.deepcopy(base)
    document["run"]["pid"] = 10_000 + index
    document["created_at"] = f"2025-01-01T00:{index // 60 % 60:02d}:{index % 60:02d}Z"
    document["system"]["hostname"] = f"node-{index:04d}"
    document["env"]["variables"]["RANK"] = str(index)
    for record in document["collectors"].values():
        record["duration_ms"] = float(index % 97)
    if index in ODD:
        *path, value = ODD[index]
        node = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    document["digest"] = digest_of(document)
    return document


def write_fleet(base: dict[str, Any], directory: Path, count: int) -> Path:
    directory.mkdir()
    for index in range(count):
        text = json.dumps(member(base, index))
        (directory / f"m{index:04d}.json").write_text(text, encoding="utf-8")
    return directory


def test_fleet_of_1000_finds_exactly_the_three_planted_odd_ones(
    base_document: dict[str, Any], tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    directory = write_fleet(base_document, tmp_path / "fleet", 1000)
    result = run_cli("fleet", str(directory), "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["total"] == 1000
    assert report["odd_ones_out"] == [str(directory / f"m{i:04d}.json") for i in sorted(ODD)]
    reference, *others = report["classes"]
    assert reference["size"] == 997
    assert reference["differences"] == []
    apart = {c["members"][0]: [d["path"] for d in c["differences"]] for c in others}
    assert apart == {
        str(directory / "m0017.json"): ["env.variables.OMP_NUM_THREADS"],
        str(directory / "m0404.json"): ["packages.installed.pygments.version"],
        str(directory / "m0999.json"): ["python.hash_randomization"],
    }


def test_fleet_table_markdown_and_strict(
    base_document: dict[str, Any], tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    directory = write_fleet(base_document, tmp_path / "fleet", 20)
    table = run_cli("fleet", str(directory))
    assert table.code == 0
    assert "20 manifests in 2 classes; 1 odd one(s) out" in table.out
    markdown = run_cli("fleet", str(directory), "--format", "markdown")
    assert "| medium | `env.variables.OMP_NUM_THREADS` |" in markdown.out or (
        "`env.variables.OMP_NUM_THREADS`" in markdown.out
    )
    assert f"- {directory / 'm0017.json'}" in markdown.out
    assert run_cli("fleet", str(directory), "--strict").code == 1
    same = [str(directory / f"m{i:04d}.json") for i in range(3)]
    assert run_cli("fleet", *same, "--strict").code == 0


def test_fleet_expands_cluster_manifests_per_rank(
    base_document: dict[str, Any], tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    from envsnap.diff.cluster import GatherInfo, RankCapture, build_cluster

    documents = [member(base_document, i) for i in (1, 2, 17)]
    captures = [RankCapture(r, None, doc) for r, doc in enumerate(documents)]
    path = tmp_path / "cluster.json"
    path.write_text(build_cluster(captures, gather=GatherInfo(source="files")).to_json())
    report = json.loads(run_cli("fleet", str(path), "--format", "json").out)
    assert report["odd_ones_out"] == [f"{path}#rank2"]


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not valid JSON"), ('{"schema_version": "9.0"}', "newer than this envsnap")],
)
def test_bad_input_is_one_line_exit_2(
    tmp_path: Path, run_cli: Callable[..., CliResult], content: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run_cli("fleet", str(bad))
    assert result.code == 2
    assert message in result.err
    assert len(result.err.strip().splitlines()) == 1
    missing = run_cli("fleet", str(tmp_path / "nope"))
    assert missing.code == 2 and "no such file or directory" in missing.err
