"""A manifest read without a model object per installed package, for commands that list them.

`load` builds a pydantic model for every package: for 200k packages that is most of the time
and memory of `envsnap show` or `export`. `load_lean` validates the file exactly as `load` does
(`check_document`: package entries in slices, into plain dicts) and keeps the entries as the
dicts they were read as; every other section is a model as usual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from envsnap.manifest.model import Manifest, check_document, manifest_from_document, read_document


@dataclass(frozen=True)
class LeanManifest:
    """A validated manifest and its package entries by key.

    Read packages from `installed`: in `manifest`, `packages.installed` may be empty.
    `read` is the validated document as read from a file, packages included.
    """

    manifest: Manifest
    installed: Mapping[str, Mapping[str, Any]]
    read: dict[str, Any] | None = None

    @property
    def document(self) -> dict[str, Any]:
        """The whole manifest's JSON form: as read, else the model's."""
        return self.read if self.read is not None else self.manifest.to_document()

    def digest(self) -> str:
        """The recorded digest, else the one computed over the whole manifest."""
        if self.manifest.digest:
            return self.manifest.digest
        if self.read is None:  # the model holds every package
            return self.manifest.compute_digest()
        return manifest_from_document(self.read, "manifest").compute_digest()


def load_lean(path: str | os.PathLike[str]) -> LeanManifest:
    """Read and validate a manifest file as `load` does. Raises `ManifestError` (one line)."""
    source = str(path)
    document = read_document(path)
    check_document(document, source)
    packages = document.get("packages")
    if not isinstance(packages, dict) or not packages.get("installed"):
        return LeanManifest(manifest_from_document(document, source), {}, document)
    installed = packages["installed"]
    rest = {**document, "packages": {**packages, "installed": {}}}
    return LeanManifest(manifest_from_document(rest, source), installed, document)


def as_lean(manifest: Manifest | LeanManifest) -> LeanManifest:
    """A manifest model in the lean form (its packages as dicts); a lean one as it is."""
    if isinstance(manifest, LeanManifest):
        return manifest
    installed = manifest.packages.installed if manifest.packages else {}
    return LeanManifest(manifest, {key: package.model_dump() for key, package in installed.items()})
