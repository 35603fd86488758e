"""envsnap: record the conditions of an ML run and rank the differences that change results.

Public API (imports are lazy so `import envsnap` stays cheap inside a training script):

- `envsnap.capture(path=None, **objects)` -> Manifest
- `envsnap.capture_distributed(path=None, **objects)` -> ClusterManifest on rank 0, else None
- `envsnap.load(path)` -> Manifest
- `envsnap.SeedManager(master_seed, rank=None)`, `envsnap.deterministic(master_seed, ...)`
"""

from __future__ import annotations

from os import PathLike, fspath
from typing import TYPE_CHECKING, Any

from envsnap._version import __version__

if TYPE_CHECKING:
    from envsnap.diff.cluster.model import ClusterManifest
    from envsnap.manifest.model import Manifest
    from envsnap.training.seeding import SeedManager, deterministic

__all__ = ["SeedManager", "__version__", "capture", "capture_distributed", "deterministic", "load"]


def load(path: str | PathLike[str]) -> Manifest:
    """Read and validate a manifest file (raises `envsnap.errors.ManifestError`)."""
    from envsnap.manifest.model import load as _load

    return _load(path)


def capture(path: str | PathLike[str] | None = None, **kwargs: Any) -> Manifest:
    """Capture the current process's conditions; write atomically to `path` when given.

    Never raises into the caller: failures are recorded in the manifest's `collectors`.
    """
    from envsnap.capturing.api import capture as _capture

    return _capture(path, **kwargs)


def capture_distributed(
    path: str | PathLike[str] | None = None, **kwargs: Any
) -> ClusterManifest | None:
    """Capture every rank of a torch.distributed job into one cluster manifest on rank 0.

    Call on every rank; takes `capture`'s keywords. Returns the cluster manifest on rank 0 and
    None elsewhere. Never raises, never hangs: failed or slow ranks are recorded as failed.
    """
    from envsnap.diff.cluster.gather import capture_distributed as _capture_distributed

    return _capture_distributed(None if path is None else fspath(path), **kwargs)


def __getattr__(name: str) -> Any:
    # Seeding is loaded on first use so that `import envsnap` stays cheap.
    if name in ("SeedManager", "deterministic"):
        from envsnap.training import seeding

        return getattr(seeding, name)
    raise AttributeError(f"module 'envsnap' has no attribute {name!r}")
