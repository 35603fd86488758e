"""MLflow and W&B integrations, against the real libraries, offline."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from envsnap.manifest.facts import key_facts
from envsnap.manifest.model import load
from tests.helpers import FIXTURES

MANIFEST = FIXTURES / "manifests" / "full.json"


def test_mlflow_logs_the_manifest_artifact_and_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mlflow = pytest.importorskip("mlflow")
    import envsnap.interop.integrations.mlflow as envsnap_mlflow

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 asks for this opt-in
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    manifest = load(MANIFEST)
    with mlflow.start_run() as run:
        envsnap_mlflow.log_manifest(manifest)
    stored = mlflow.get_run(run.info.run_id)
    assert stored.data.tags["envsnap.digest"] == manifest.digest
    for name, value in key_facts(manifest).items():
        assert stored.data.tags[name] == value
    local = mlflow.artifacts.download_artifacts(
        run_id=run.info.run_id,
        artifact_path="envsnap/envsnap-manifest.json",
        dst_path=str(tmp_path / "dl"),
    )
    assert load(local).digest == manifest.digest


# wandb.init dumps wandb's own settings model, which warns under pydantic 2.6 (a tuple in a
# list field; measured with wandb 0.21 to 0.23): wandb's warning, at floors both allow.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
def test_wandb_offline_logs_config_and_artifact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wandb = pytest.importorskip("wandb")
    import envsnap.interop.integrations.wandb as envsnap_wandb

    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    manifest = load(MANIFEST)
    run = wandb.init(project="envsnap-test", mode="offline", dir=str(tmp_path))
    try:
        envsnap_wandb.log_manifest(manifest, run=run)
        assert run.config["envsnap"]["envsnap.digest"] == manifest.digest
        run_dir = Path(run.dir).parent
    finally:
        run.finish()
    # Offline runs record everything in the run's transaction log, which W&B's service process
    # may still be flushing when finish() returns: wait for the artifact record to land.
    expected = f"envsnap-{run.id}".encode()
    for _ in range(120):
        logs = list(run_dir.glob("*.wandb"))
        if logs and expected in logs[0].read_bytes():
            break
        time.sleep(0.5)
    assert logs, os.listdir(run_dir)
    assert expected in logs[0].read_bytes()
    assert b"envsnap.digest" in logs[0].read_bytes()


def test_wandb_without_a_run_is_a_clear_error() -> None:
    pytest.importorskip("wandb")
    import envsnap.interop.integrations.wandb as envsnap_wandb
    from envsnap.errors import EnvsnapError

    with pytest.raises(EnvsnapError, match="no active W&B run"):
        envsnap_wandb.log_manifest(load(MANIFEST), run=None)
