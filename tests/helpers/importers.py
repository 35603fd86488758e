"""Reading stated values out of imported manifests."""

from __future__ import annotations

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
