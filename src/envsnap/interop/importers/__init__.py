"""Importers: turn records other tools already keep into envsnap manifests.

`IMPORTERS` maps a format name (as `envsnap import FORMAT` takes it) to its reader.
`import_record` converts one record; `load_any` is what `envsnap diff` and `envsnap check` call
to accept "a manifest or a foreign record", detecting which.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.files.reader import read_input
from envsnap.interop.importers.base import Imported, Source, decode_text, to_manifest
from envsnap.manifest.model import Manifest, load

Reader = Callable[[Path, Redactor], tuple[Source, Imported]]


def _collect_env(path: Path, redactor: Redactor) -> tuple[Source, Imported]:
    from envsnap.interop.importers.bounds import BOUNDS
    from envsnap.interop.importers.collect_env import read_collect_env

    what = "a collect_env report"
    data = read_input(path, what, max_bytes=BOUNDS[what].max_bytes, error=ManifestError)
    try:
        imported = read_collect_env(decode_text(data, str(path), what), redactor)
    except ManifestError as exc:
        raise ManifestError(f"{path}: {exc}") from None
    return Source(path=path, files={path.name: data}), imported


def _wandb(path: Path, redactor: Redactor) -> tuple[Source, Imported]:
    from envsnap.interop.importers.wandb import read_wandb

    return read_wandb(path, redactor)


def _mlflow(path: Path, redactor: Redactor) -> tuple[Source, Imported]:
    from envsnap.interop.importers.mlflow import read_mlflow

    return read_mlflow(path, redactor)


IMPORTERS: dict[str, Reader] = {
    "collect-env": _collect_env,
    "wandb": _wandb,
    "mlflow": _mlflow,
}
FORMATS: tuple[str, ...] = (*IMPORTERS, "auto")


def import_record(
    path: str | os.PathLike[str], fmt: str = "auto", redactor: Redactor | None = None
) -> Manifest:
    """Convert a collect_env report, W&B run or MLflow run into a sealed manifest.

    `fmt` is a key of IMPORTERS or "auto". Raises ManifestError (one line) for input that is
    not that format, is empty, binary or unreadable.
    """
    from envsnap.interop.importers.detect import detect

    target = Path(path)
    if not target.exists():
        raise ManifestError(f"{target}: no such file or directory")
    if fmt == "auto":
        kind = detect(target)
        if kind == "manifest":
            raise ManifestError(f"{target}: already an envsnap manifest; nothing to import")
        fmt = kind
    if fmt not in IMPORTERS:
        raise ManifestError(f"unknown import format {fmt!r} (known: {', '.join(FORMATS)})")
    redactor = redactor or Redactor()
    source, imported = IMPORTERS[fmt](target, redactor)
    return to_manifest(imported, source, redactor)


def load_any(path: str | os.PathLike[str]) -> Manifest:
    """Load a manifest, or import a collect_env report, W&B run or MLflow run, detected.

    An imported manifest carries `imported_from` (format, source name, sha256); sections and
    fields its source does not state are null with the reason (e.g. "not stated in
    collect_env report") in `collectors[<section>].reason` or the section's `unknown`.
    """
    from envsnap.interop.importers.detect import detect

    target = Path(path)
    if not target.exists():
        raise ManifestError(f"{target}: no such file or directory")
    if detect(target) == "manifest":
        return load(target)
    return import_record(target, "auto")


__all__ = ["FORMATS", "IMPORTERS", "import_record", "load_any"]
