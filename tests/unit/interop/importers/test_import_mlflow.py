"""MLflow import: a real run logged to a local file store here, an MLflow 3 model layout, bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.interop.importers import import_record, load_any
from tests import helpers
from tests.helpers import git
from tests.helpers.importers import stated
from tests.unit.interop.importers.runs import make_mlflow_run

FIXTURES = helpers.FIXTURES / "mlflow"


@pytest.fixture(scope="module")
def mlflow_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real MLflow run of a script in a git repository, in a file store: (run dir, repo)."""
    pytest.importorskip("mlflow", reason="mlflow is not installed (pip install mlflow-skinny)")
    return make_mlflow_run(tmp_path_factory.mktemp("mlflow"))


@pytest.mark.slow
def test_real_file_store_run(mlflow_run: tuple[Path, Path]) -> None:
    run_dir, repo = mlflow_run
    manifest = import_record(run_dir, "mlflow")
    assert manifest.imported_from is not None and manifest.imported_from.format == "mlflow"
    assert stated(manifest, "code", "commit") == git(repo, "rev-parse", "HEAD").strip()
    assert stated(manifest, "python", "version") == "3.11.7"
    assert stated(manifest, "packages", "installed.torch.version") == "2.13.0"
    assert stated(manifest, "packages", "installed.mlflow.version") == "3.17.2"
    assert manifest.system is None and manifest.gpu is None
    assert manifest.collectors["gpu"].reason == "not stated in MLflow run"
    assert manifest.imported_from is not None
    assert manifest.imported_from.facts["mlflow_run_id"] == run_dir.name


@pytest.mark.slow
def test_meta_yaml_and_auto_detection(mlflow_run: tuple[Path, Path]) -> None:
    run_dir, _ = mlflow_run
    by_dir = load_any(run_dir)
    by_meta = load_any(run_dir / "meta.yaml")
    assert by_dir.imported_from == by_meta.imported_from
    assert by_dir.imported_from is not None and by_dir.imported_from.format == "mlflow"


@pytest.mark.slow
def test_digest_covers_artifacts(mlflow_run: tuple[Path, Path], tmp_path: Path) -> None:
    import shutil

    run_dir, _ = mlflow_run
    copy = tmp_path / run_dir.parent.name / run_dir.name
    shutil.copytree(run_dir, copy)
    first = import_record(copy, "mlflow").imported_from
    (copy / "artifacts" / "model" / "requirements.txt").write_text("torch==2.12.0\n")
    second = import_record(copy, "mlflow").imported_from
    assert first is not None and second is not None
    assert first.sha256 != second.sha256


def test_mlflow3_logged_model_layout() -> None:
    """Models logged by MLflow 3 live beside the runs, linked by source_run_id."""
    manifest = import_record(FIXTURES / "mlruns" / "1" / "5f0c2d7a9b8e4c3d2a1b0c9d8e7f6a5b", "auto")
    assert stated(manifest, "code", "commit") == "4c3b2a1908f7e6d5c4b3a2910f8e7d6c5b4a3928"
    assert stated(manifest, "code", "branch") == "main"
    assert stated(manifest, "code", "dirty") is False
    assert stated(manifest, "python", "version") == "3.10.14"
    assert stated(manifest, "packages", "installed.transformers.version") == "4.45.2"
    # The other model belongs to another run and must not leak in.
    with pytest.raises(KeyError):
        stated(manifest, "packages", "installed.scikit-learn")
    assert manifest.imported_from is not None
    facts = manifest.imported_from.facts
    assert facts["mlflow_git_repo_url"] == "https://<redacted>@github.com/acme/nlp"  # type: ignore[index]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no meta.yaml here"),
        ({"meta.yaml": "run_id: [unclosed"}, "not valid YAML"),
        ({"meta.yaml": "name: something-else\n"}, "not an MLflow run meta.yaml"),
        ({"meta.yaml": ""}, "file is empty"),
    ],
    ids=["no-meta", "bad-yaml", "other-yaml", "empty-meta"],
)
def test_bad_run_directory_exits_2_with_one_line(
    run_cli: Callable[..., Any], tmp_path: Path, files: dict[str, str], message: str
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name, text in files.items():
        (run / name).write_text(text, encoding="utf-8")
    result = run_cli("import", "mlflow", str(run))
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1
    assert message in result.err
