"""`envsnap bisect` and `envsnap run --as` on real jobs whose metric depends on one condition.

A and B differ in ten applicable ways (threads, default dtype, cuDNN flags, fp32 matmul
precision, PYTHONHASHSEED, other env variables, the declared seed, a package version) and in
some that cannot be applied here (Python version, hostname, a redacted variable).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.experiment.conditions import conditions_of, differing
from tests.acceptance.bisect_jobs import CAUSES, METRIC, build_wheel, write_job, write_pair
from tests.conftest import CliResult

pytestmark = pytest.mark.slow
# The jobs and the manifests' torch section need torch (a dev dependency, through lightning).
pytest.importorskip("torch")
RunCli = Callable[..., CliResult]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.acceptance.bisect_jobs import base_document

    root = tmp_path_factory.mktemp("bisect")
    wheels = root / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "1.0", 1e-6)
    build_wheel(wheels, "2.0", 1e-3)
    a, b = write_pair(root, base_document())
    return {"root": root, "a": a, "b": b, "wheels": wheels, "cache": root / "cache"}


def _bisect(run_cli: RunCli, pair: dict[str, Path], job: str, *extra: str) -> tuple[int, Any]:
    root = pair["root"]
    work = root / f"work-{job}"
    packages = ["--packages", "--no-index", "--find-links", str(pair["wheels"]),
                "--cache-dir", str(pair["cache"])]  # fmt: skip
    result = run_cli(
        "bisect", str(pair["a"]), str(pair["b"]), "--metric", METRIC, "-f", "json",
        "--work-dir", str(work), "--yes", *packages, *extra,
        "--", sys.executable, str(write_job(root, job)),
    )  # fmt: skip
    assert result.err == "" or result.code != 2, result.err
    return result.code, json.loads(result.out)


def test_the_pair_differs_in_at_least_eight_applicable_ways(pair: dict[str, Path]) -> None:
    docs = [json.loads(pair[side].read_text(encoding="utf-8")) for side in ("a", "b")]
    keys = differing(conditions_of(docs[0]), conditions_of(docs[1]))
    assert len(keys) >= 8
    assert set(CAUSES.values()) <= set(keys)


@pytest.mark.parametrize("job", ["threads", "dtype", "hashseed", "seed", "package"])
def test_bisect_finds_the_planted_cause(run_cli: RunCli, pair: dict[str, Path], job: str) -> None:
    code, report = _bisect(run_cli, pair, job)
    assert code == 0, report["summary"]
    assert report["verdict"] == "confirmed"
    assert report["confirmed"] == [CAUSES[job]]
    assert report["minimal"] is True
    assert len(report["candidates"]) >= 8
    assert CAUSES[job] not in report["no_effect"]
    assert len(report["no_effect"]) == len(report["candidates"]) - 1
    assert report["metric_a"] != report["metric_b"]
    # Far fewer runs than trying each difference alone (plus the three reproduce checks).
    assert len(report["runs"]) < len(report["candidates"]) + 3
    for run in report["runs"]:
        assert (Path(run["directory"]) / "stdout.txt").is_file()
    not_applicable = {item["path"] for item in report["not_applicable"]}
    assert "python.version" in not_applicable
    # The host name is bookkeeping: neither a candidate nor listed as something left untried.
    assert "system.hostname" not in not_applicable


def test_noise_is_reported_as_not_reproducing(run_cli: RunCli, pair: dict[str, Path]) -> None:
    code, report = _bisect(run_cli, pair, "noise")
    assert code == 1
    assert report["verdict"] == "noise"
    assert report["confirmed"] == []
    assert report["summary"].startswith("does not reproduce")
    assert len(report["runs"]) == 3


def test_a_job_indifferent_to_every_difference_does_not_reproduce(
    run_cli: RunCli, pair: dict[str, Path]
) -> None:
    code, report = _bisect(run_cli, pair, "constant")
    assert (code, report["verdict"], len(report["runs"])) == (1, "not-reproduced", 2)


def test_bisect_stops_at_max_runs_and_says_so(run_cli: RunCli, pair: dict[str, Path]) -> None:
    code, report = _bisect(run_cli, pair, "hashseed", "--max-runs", "4")
    assert code == 0
    assert report["minimal"] is False
    assert len(report["runs"]) == 4
    assert "not minimised" in report["summary"]
    assert CAUSES["hashseed"] in report["confirmed"]


def test_run_as_applies_b_and_writes_a_manifest_of_the_run(
    run_cli_process: RunCli, pair: dict[str, Path]
) -> None:
    work = pair["root"] / "run-probe"
    result = run_cli_process(
        "run", "--as", str(pair["b"]), "--work-dir", str(work), "--yes",
        "--", sys.executable, str(write_job(pair["root"], "probe")),
    )  # fmt: skip
    assert result.code == 0, result.err
    seen = dict(line.split(" ", 1) for line in result.out.splitlines())
    assert seen["threads"] == "3"
    assert seen["dtype"] == "torch.float64"
    assert seen["deterministic"] == "True"
    assert seen["benchmark"] == "True"
    assert seen["hashseed"] == "1"
    assert seen["nccl"] == "Tree"
    assert seen["secret"] == "None"  # a redacted value is never applied
    from envsnap.training.seeding.derive import derive_seed

    assert seen["torch_seed"] == str(derive_seed(2, "torch"))
    assert "applied: env PYTHONHASHSEED=1" in result.err
    assert "env:NCCL_SECRET_TOKEN: its value was redacted" in result.err
    assert "python.version" not in result.err  # said in words, not paths
    assert "another Python interpreter" in result.err
    manifest = json.loads((work / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["torch"]["num_threads"] == 3
    assert manifest["torch"]["default_dtype"] == "torch.float64"
    assert manifest["env"]["variables"]["PYTHONHASHSEED"] == "1"


def test_run_as_with_packages_installs_pins_and_reports_what_cannot(
    run_cli_process: RunCli, pair: dict[str, Path]
) -> None:
    document = json.loads(pair["b"].read_text(encoding="utf-8"))
    document["packages"]["installed"]["ghostpkg"] = {
        "name": "ghostpkg", "version": "9.9", "installer": "pip", "source": "index",
    }  # fmt: skip
    from envsnap.manifest.canonical import digest_of

    document["digest"] = digest_of(document)
    b_ghost = pair["root"] / "b-ghost.json"
    b_ghost.write_text(json.dumps(document), encoding="utf-8")
    result = run_cli_process(
        "run", "--as", str(b_ghost), "--no-manifest", "--packages", "--no-index",
        "--find-links", str(pair["wheels"]), "--cache-dir", str(pair["root"] / "cache-run"),
        "--work-dir", str(pair["root"] / "run-pkg"), "--yes",
        "--", sys.executable, str(write_job(pair["root"], "package")),
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.out.strip() == f"metric: {(0.25 + 1e-3) / (1 + 2e-3)!r}"
    assert "applied: package numdefault==2.0" in result.err
    assert "ghostpkg==9.9: cannot be installed" in result.err
    venvs = list((pair["root"] / "cache-run").iterdir())
    assert len(venvs) == 1 and (venvs[0] / "envsnap-venv.json").is_file()
    assert shutil.which("python", path=str(venvs[0] / "bin")) is not None


def test_bad_input_is_one_line_and_exit_2(run_cli: RunCli, pair: dict[str, Path]) -> None:
    missing = run_cli("bisect", str(pair["a"]), "nope.json", "--metric", "x", "--", "true")
    assert missing.code == 2 and missing.err.count("\n") == 1 and "nope.json" in missing.err
    regex = run_cli("bisect", str(pair["a"]), str(pair["b"]), "--metric", "(", "--", "true")
    assert regex.code == 2 and "regular expression" in regex.err
    no_metric = run_cli("bisect", str(pair["a"]), str(pair["b"]), "--", "true")
    assert no_metric.code == 2 and "--metric" in no_metric.err
    no_command = run_cli("run", "--as", str(pair["b"]))
    assert no_command.code == 2 and "missing the command" in no_command.err
