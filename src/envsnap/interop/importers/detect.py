"""Tell which kind of record a path holds: an envsnap manifest, collect_env text, W&B or MLflow."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from envsnap.errors import ManifestError
from envsnap.files.reader import parse_json, too_large
from envsnap.interop.importers import collect_env, mlflow, wandb
from envsnap.interop.importers.base import decode_text, read_bytes
from envsnap.interop.importers.bounds import BOUNDS
from envsnap.manifest.model import looks_like_manifest

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
    what = "a manifest or a collect_env, W&B or MLflow record"
    data = read_bytes(path, what)
    text = decode_text(data, str(path), what)
    if text.lstrip().startswith("{"):
        document = parse_json(data, str(path), what, error=ManifestError, max_depth=None)
        if looks_like_manifest(document):
            return "manifest"
        if wandb.looks_like_metadata(document):
            return "wandb"
        raise ManifestError(
            f"{path}: JSON that is neither an envsnap manifest nor a W&B wandb-metadata.json"
        )
    report = BOUNDS["a collect_env report"].max_bytes
    if len(data) > report:  # not parsed: the import would refuse it all the same
        raise ManifestError(too_large(str(path), "a collect_env report", report))
    try:
        collect_env.parse_report(text)
    except ManifestError:
        raise ManifestError(
            f"{path}: not a manifest, a collect_env report, a W&B wandb-metadata.json or an "
            "MLflow run"
        ) from None
    return "collect-env"
