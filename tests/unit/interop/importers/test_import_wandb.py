"""W&B import: a real offline run made here, shaped files for GPU and legacy runs, bad input."""

from __future__ import annotations

import json
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.interop.importers import import_record, load_any
from envsnap.manifest.model import Manifest
from tests import helpers
from tests.helpers import git
from tests.helpers.importers import stated
from tests.unit.interop.importers.runs import SECRET, make_wandb_run

FIXTURES = helpers.FIXTURES / "wandb"


@pytest.fixture(scope="module")
def wandb_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real offline W&B run of a script in a dirty git repository: (run dir, repo)."""
    pytest.importorskip("wandb", reason="wandb is not installed (pip install wandb)")
    pytest.importorskip("google.protobuf")
    return make_wandb_run(tmp_path_factory.mktemp("wandb"))


@pytest.mark.slow
def test_real_offline_run(wandb_run: tuple[Path, Path]) -> None:
    import wandb

    run_dir, repo = wandb_run
    manifest = import_record(run_dir, "wandb")
    assert manifest.imported_from is not None and manifest.imported_from.format == "wandb"
    assert stated(manifest, "python", "version") == platform.python_version()
    assert stated(manifest, "python", "implementation") == platform.python_implementation()
    assert stated(manifest, "system", "kernel") == platform.release()
    assert stated(manifest, "code", "commit") == git(repo, "rev-parse", "HEAD").strip()
    assert stated(manifest, "code", "dirty") is True
    assert stated(manifest, "packages", "installed.wandb.version") == wandb.__version__
    assert manifest.run.argv[-4:] == ["--token", "<redacted>", "--lr", "0.1"]
    text = manifest.to_json()
    assert SECRET not in text
    assert manifest.gpu is None  # no GPU here, and W&B says nothing about one
    assert manifest.collectors["gpu"].reason == "not stated in W&B run metadata"


@pytest.mark.slow
def test_auto_detects_the_run_directory_and_the_metadata_file(wandb_run: tuple[Path, Path]) -> None:
    run_dir, _ = wandb_run
    by_dir = load_any(run_dir)
    by_files_dir = load_any(run_dir / "files")
    by_file = load_any(run_dir / "files" / "wandb-metadata.json")
    assert by_dir.imported_from is not None and by_dir.imported_from.format == "wandb"
    assert by_file.imported_from is not None and by_files_dir.imported_from is not None
    # The same three files are read whichever path is given.
    assert by_dir.imported_from.sha256 == by_file.imported_from.sha256
    assert by_dir.imported_from.sha256 == by_files_dir.imported_from.sha256
    assert by_dir.extra == by_file.extra == by_files_dir.extra
    assert by_dir.code is not None and by_dir.code.dirty is True


def _import(name: str) -> Manifest:
    return import_record(FIXTURES / name, "auto")


def test_gpu_run_maps_devices_through_the_gpu_table() -> None:
    manifest = _import("gpu_run")
    assert manifest.gpu is not None
    gpu = manifest.gpu
    assert gpu.device_count == 8
    device = gpu.devices["7"]
    assert device.name == "NVIDIA H100 80GB HBM3"
    assert device.compute_capability == "9.0"
    assert device.arch == "Hopper"
    assert device.memory_total_bytes == 85520809984
    assert device.uuid_hash is not None and len(device.uuid_hash) == 16
    assert gpu.cuda_driver_version == "12.4"
    assert gpu.driver_version is None
    assert gpu.unknown["driver_version"] == "not stated in W&B run metadata"
    text = manifest.to_json()
    assert "GPU-6d2f" not in text  # UUIDs are reduced to a hash prefix
    assert "alice@example.com" not in text and "alice" not in manifest.run.argv
    assert "hf_" not in text
    assert stated(manifest, "packages", "installed.torch.version") == "2.5.1+cu124"
    assert manifest.imported_from is not None
    assert manifest.imported_from.facts["wandb_slurm"]["job_id"] == "4242"


def test_legacy_metadata_from_the_python_service() -> None:
    manifest = _import("legacy_0_12")
    assert stated(manifest, "python", "version") == "3.8.10"
    assert manifest.gpu is not None and manifest.gpu.device_count == 2
    assert manifest.gpu.devices["1"].compute_capability == "7.0"
    assert manifest.created_at.isoformat().startswith("2021-06-01T10:00:00")
    # No diff.patch beside it: the tree's state is not stated.
    assert manifest.code is not None and manifest.code.dirty is None
    assert "diff.patch" in manifest.code.unknown["dirty"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"name": "not-wandb", "version": 3}', "not a W&B wandb-metadata.json"),
        ("[1, 2, 3]", "not a W&B wandb-metadata.json"),
        ('{"python": "3.11"', "not valid JSON"),
        ("", "file is empty"),
    ],
    ids=["other-json", "json-list", "broken-json", "empty"],
)
def test_bad_metadata_exits_2_with_one_line(
    run_cli: Callable[..., Any], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "wandb-metadata.json"
    path.write_text(content, encoding="utf-8")
    result = run_cli("import", "wandb", str(path))
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1
    assert message in result.err


def test_other_json_under_auto_is_refused(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"learning_rate": 0.1, "epochs": 3}), encoding="utf-8")
    result = run_cli("import", "auto", str(path))
    assert result.code == 2
    assert "neither an envsnap manifest nor a W&B wandb-metadata.json" in result.err
