"""Reading stated values out of imported manifests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.manifest.model import Manifest


def resolve(document: Any, path: str) -> Any:
    """Follow a dotted path whose keys may themselves hold dots ('devices.0.arch')."""
    if path == "":
        return document
    if not isinstance(document, dict):
        raise KeyError(path)
    if path in document:
        return document[path]
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if head in document:
            try:
                return resolve(document[head], ".".join(parts[cut:]))
            except KeyError:
                continue
    raise KeyError(path)


def stated(manifest: Manifest, section: str, path: str) -> Any:
    """A stated value wherever the manifest holds it: the section, or `imported_from.sections`
    when the section model needs more than the record states."""
    document = manifest.to_document()
    if document.get(section) is not None:
        return resolve(document[section], path)
    return resolve(document["imported_from"]["sections"][section], path)


def imported_report(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    """A collect_env report's text as `envsnap import` reads it: the manifest document."""
    from envsnap.interop.importers import load_any

    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    return load_any(str(path)).to_document()
