"""Tell which kind of record a path holds: an envsnap manifest, collect_env text, W&B or MLflow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from envsnap.errors import ManifestError
from envsnap.interop.importers import collect_env, mlflow, wandb
from envsnap.interop.importers.base import decode_text, read_bytes

Kind = Literal["manifest", "collect-env", "wandb", "mlflow"]


def detect(path: Path) -> Kind:
    """The kind of record at `path`, or a one-line ManifestError naming what was found."""
    if path.is_dir():
        if (path / mlflow.META).is_file():
            return "mlflow"
        if (path / wandb.METADATA).is_file() or (path / "files" / wandb.METADATA).is_file():
            return "wandb"
        raise ManifestError(
            f"{path}: a directory that is neither an MLflow run ({mlflow.META}) nor a W&B run "
            f"({wandb.METADATA})"
        )
    if path.name == mlflow.META:
        return "mlflow"
    data = read_bytes(path, "a manifest or a collect_env, W&B or MLflow record")
    text = decode_text(data, str(path), "a manifest or a collect_env, W&B or MLflow record")
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise ManifestError(f"{path}: looks like JSON but is not valid JSON") from None
        if isinstance(document, dict) and "schema_version" in document:
            return "manifest"
        if wandb.looks_like_metadata(document):
            return "wandb"
        raise ManifestError(
            f"{path}: JSON that is neither an envsnap manifest nor a W&B wandb-metadata.json"
        )
    try:
        collect_env.parse_report(text)
    except ManifestError:
        raise ManifestError(
            f"{path}: not a manifest, a collect_env report, a W&B wandb-metadata.json or an "
            "MLflow run"
        ) from None
    return "collect-env"
