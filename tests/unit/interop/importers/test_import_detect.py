"""`load_any` and format detection: manifests pass through, foreign records are imported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.errors import ManifestError
from envsnap.interop.importers import import_record, load_any
from envsnap.interop.importers.detect import detect
from envsnap.manifest.model import write_manifest
from tests import helpers

FIXTURES = helpers.FIXTURES
REPORT = FIXTURES / "collect_env" / "12_2025_torch2.7_allocator_h100.txt"
WANDB = FIXTURES / "wandb" / "gpu_run"
MLFLOW = FIXTURES / "mlflow" / "mlruns" / "1" / "5f0c2d7a9b8e4c3d2a1b0c9d8e7f6a5b"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (REPORT, "collect-env"),
        (WANDB, "wandb"),
        (WANDB / "files", "wandb"),
        (WANDB / "files" / "wandb-metadata.json", "wandb"),
        (MLFLOW, "mlflow"),
        (MLFLOW / "meta.yaml", "mlflow"),
    ],
)
def test_detect(path: Path, kind: str) -> None:
    assert detect(path) == kind


def test_load_any_passes_manifests_through(tmp_path: Path) -> None:
    manifest = import_record(REPORT)
    path = tmp_path / "a.json"
    write_manifest(manifest, path)
    assert detect(path) == "manifest"
    assert load_any(path) == manifest


def test_load_any_imports_foreign_records_with_their_provenance() -> None:
    for path, fmt in ((REPORT, "collect-env"), (WANDB, "wandb"), (MLFLOW, "mlflow")):
        manifest = load_any(path)
        assert manifest.imported_from is not None
        assert manifest.imported_from.format == fmt
        assert manifest.digest == manifest.compute_digest()


def test_unknowns_say_which_source_did_not_state_them() -> None:
    """What a diff needs to write "not stated in B's collect_env report"."""
    manifest = load_any(REPORT)
    assert manifest.imported_from is not None and manifest.imported_from.format == "collect-env"
    assert manifest.collectors["seeds"].status == "skipped"
    assert manifest.collectors["seeds"].reason == "not stated in collect_env report"
    assert manifest.gpu is not None
    assert (
        manifest.gpu.unknown["devices.0.memory_total_bytes"] == "not stated in collect_env report"
    )
    assert manifest.gpu.devices["0"].memory_total_bytes is None


def test_import_is_deterministic_apart_from_the_clock() -> None:
    first, second = import_record(REPORT), import_record(REPORT)
    assert first.model_dump(exclude={"created_at", "digest"}) == second.model_dump(
        exclude={"created_at", "digest"}
    )


def test_auto_refuses_a_manifest(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    write_manifest(import_record(REPORT), path)
    result = run_cli("import", "auto", str(path))
    assert result.code == 2 and "already an envsnap manifest" in result.err


def test_unknown_format_and_unrecognised_directory(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    bad_format = run_cli("import", "sacred", str(REPORT))
    assert bad_format.code == 2 and len(bad_format.err.strip().splitlines()) == 1
    empty_dir = run_cli("import", "auto", str(tmp_path))
    assert empty_dir.code == 2 and "neither an MLflow run" in empty_dir.err
    with pytest.raises(ManifestError, match="no such file"):
        load_any(tmp_path / "missing.json")


def test_wrong_format_for_the_file_is_one_line(run_cli: Callable[..., Any]) -> None:
    as_wandb = run_cli("import", "wandb", str(REPORT))
    assert as_wandb.code == 2 and "not valid JSON" in as_wandb.err
    as_collect_env = run_cli("import", "collect-env", str(WANDB / "files" / "wandb-metadata.json"))
    assert as_collect_env.code == 2 and "not a collect_env report" in as_collect_env.err
    as_mlflow = run_cli("import", "mlflow", str(REPORT))
    assert as_mlflow.code == 2 and "expected an MLflow run directory" in as_mlflow.err
