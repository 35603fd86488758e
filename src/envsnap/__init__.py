"""envsnap: record the conditions of an ML run and rank the differences that change results.

Public API (imports are lazy so `import envsnap` stays cheap inside a training script):

- `envsnap.capture(path=None, **objects)` -> Manifest
- `envsnap.load(path)` -> Manifest
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envsnap._version import __version__

if TYPE_CHECKING:
    from envsnap.manifest import Manifest

__all__ = ["__version__", "capture", "load"]


def load(path: str) -> Manifest:
    """Read and validate a manifest file (raises `envsnap.errors.ManifestError`)."""
    from envsnap.manifest import load as _load

    return _load(path)


def capture(path: str | None = None, **kwargs: Any) -> Manifest:
    """Capture the current process's conditions; write atomically to `path` when given.

    Never raises into the caller: failures are recorded in the manifest's `collectors`.
    """
    from envsnap.api import capture as _capture

    return _capture(path, **kwargs)
