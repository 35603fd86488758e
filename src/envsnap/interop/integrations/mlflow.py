"""MLflow: log the manifest as a run artifact and its key facts as tags.

import envsnap.interop.integrations.mlflow as envsnap_mlflow
with mlflow.start_run():
    envsnap_mlflow.log_manifest()          # captures now, or pass manifest=...
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import mlflow

from envsnap.manifest.facts import key_facts
from envsnap.manifest.model import Manifest, write_manifest

MANIFEST_NAME = "envsnap-manifest.json"


def log_manifest(
    manifest: Manifest | None = None, *, artifact_path: str = "envsnap", label: str | None = None
) -> Manifest:
    """Log `manifest` (or a fresh capture) to the active MLflow run; returns the manifest."""
    if manifest is None:
        import envsnap

        manifest = envsnap.capture(label=label)
    with tempfile.TemporaryDirectory(prefix="envsnap-mlflow-") as tmp:
        path = Path(tmp) / MANIFEST_NAME
        write_manifest(manifest, path)
        mlflow.log_artifact(str(path), artifact_path=artifact_path)
    mlflow.set_tags(key_facts(manifest))
    return manifest
