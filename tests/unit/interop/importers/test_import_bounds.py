"""What importers read and how much: the alias-refusing YAML loader, cut values, the run folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envsnap.errors import ManifestError
from envsnap.interop.importers import import_record
from envsnap.interop.importers.bounds import (
    MAX_IMPORT_BYTES,
    RunFolder,
    load_yaml,
    truncated,
    truncated_argv,
)
from envsnap.manifest.model import Manifest
from tests.unit.interop.importers.runs import make_mlflow_run


@pytest.mark.parametrize(
    "document",
    ["a: &x [1, 2]\nb: *x\n", "a: &x 1\n", "base: &b {k: v}\nother:\n  <<: *b\n"],
    ids=["alias", "anchor-only", "merge-key"],
)
def test_yaml_anchors_and_aliases_are_refused(document: str) -> None:
    with pytest.raises(ManifestError, match="anchors and aliases are not accepted"):
        load_yaml(document, "conda.yaml")


@pytest.mark.parametrize(
    "document",
    ["a: [" * 5000, "n: " + "9" * 5000, "a: [1\n"],
    ids=["deep", "huge-int", "broken"],
)
def test_bad_yaml_is_one_manifest_error(document: str) -> None:
    with pytest.raises(ManifestError, match=r"^conda\.yaml: "):
        load_yaml(document, "conda.yaml")


def test_plain_yaml_loads() -> None:
    document = "dependencies:\n- python=3.11\n- pip:\n  - torch==2.5.1\n"
    assert load_yaml(document, "conda.yaml") == {
        "dependencies": ["python=3.11", {"pip": ["torch==2.5.1"]}]
    }


@pytest.mark.slow
def test_yaml_written_by_mlflow_has_no_anchors(tmp_path: Path) -> None:
    """Every YAML file a real MLflow run writes (run, experiment, logged model, environment
    files) loads with the loader that refuses anchors."""
    pytest.importorskip("mlflow", reason="mlflow is not installed (pip install mlflow-skinny)")
    run_dir, _ = make_mlflow_run(tmp_path)
    written = sorted(run_dir.parent.rglob("*.yaml"))
    assert {path.name for path in written} >= {"meta.yaml", "conda.yaml", "python_env.yaml"}
    for path in written:
        assert load_yaml(path.read_text(encoding="utf-8"), str(path)) is not None


def test_values_are_cut_with_a_marker() -> None:
    assert truncated("short", 10) == "short"
    assert truncated("x" * 12, 10) == "x" * 10 + "…[truncated at 10 characters]"
    assert truncated_argv(["python", "train.py"], 20) == ["python", "train.py"]
    assert truncated_argv(["python", "train.py", "--x", "y" * 50], 20) == [
        "python",
        "train.py",
        "--x",
        "yyy…[truncated at 20 characters]",
    ]


def test_run_folder_notes_what_it_skips(tmp_path: Path) -> None:
    (tmp_path / "tags").mkdir()
    (tmp_path / "tags" / "big").write_bytes(b"x" * (2 << 20))
    (tmp_path / "tags" / "small").write_text("main")
    os.mkfifo(tmp_path / "tags" / "pipe")
    folder = RunFolder.of(tmp_path)
    assert folder.read("tags/small", "an MLflow tag") == b"main"
    assert folder.read("tags/big", "an MLflow tag") is None
    assert folder.read("tags/pipe", "an MLflow tag") is None
    assert folder.files == {"tags/small": b"main"}
    assert folder.notes() == {
        "tags/big": "larger than 1 MiB; not an MLflow tag",
        "tags/pipe": "is a pipe, socket or device, expected an MLflow tag",
    }


def test_a_required_file_fails_the_import(tmp_path: Path) -> None:
    (tmp_path / "meta.yaml").write_bytes(b"run_id: x\n" * 200_000)
    with pytest.raises(ManifestError, match=r"larger than 1 MiB; not an MLflow run meta\.yaml"):
        RunFolder.of(tmp_path).require("meta.yaml", "an MLflow run meta.yaml")


def test_one_import_reads_at_most_its_budget(tmp_path: Path) -> None:
    for index in range(MAX_IMPORT_BYTES // (4 << 20) + 1):
        (tmp_path / f"r{index}.txt").write_bytes(b"a==1\n" * ((4 << 20) // 5))
    folder = RunFolder.of(tmp_path)
    read = [folder.read(name, "a requirements.txt") for name in sorted(folder.entries())]
    assert read[-1] is None and all(data is not None for data in read[:-1])
    assert folder.bytes_read <= MAX_IMPORT_BYTES
    assert list(folder.notes().values()) == ["over the 32 MiB one import reads"]


def _mlflow_run(tmp_path: Path, model_meta: str) -> Path:
    run = tmp_path / "1" / "abc"
    (run / "tags").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc\nstart_time: 1700000000000\n")
    (run / "tags" / "mlflow.source.git.commit").write_text(
        "4c3b2a1908f7e6d5c4b3a2910f8e7d6c5b4a3928"
    )
    (tmp_path / "1" / "models" / "m-1").mkdir(parents=True)
    (tmp_path / "1" / "models" / "m-1" / "meta.yaml").write_text(model_meta)
    return run


def test_a_broken_model_of_the_experiment_is_noted_not_fatal(tmp_path: Path) -> None:
    run = _mlflow_run(tmp_path, "source_run_id: &x other\nname: *x\n")
    manifest: Manifest = import_record(run, "mlflow")
    assert manifest.code is not None and manifest.code.commit is not None
    assert manifest.imported_from is not None
    notes = manifest.imported_from.facts["files_not_read"]
    assert notes == {  # type: ignore[comparison-overlap]
        "models/m-1/meta.yaml": "not valid YAML (anchors and aliases are not accepted)"
    }


def test_a_commit_tag_not_read_is_unknown_with_the_reason(tmp_path: Path) -> None:
    run = _mlflow_run(tmp_path, "source_run_id: other\n")
    tag = run / "tags" / "mlflow.source.git.commit"
    tag.unlink()
    tag.symlink_to(tmp_path / "elsewhere")
    manifest = import_record(run, "mlflow")
    assert manifest.code is None
    assert manifest.collectors["code"].reason == (
        "MLflow tag mlflow.source.git.commit not read: a symbolic link; links inside the folder "
        "are not followed"
    )
