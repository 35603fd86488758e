"""What the Lightning and Hugging Face callbacks share: where and how each rank captures."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

logger = logging.getLogger("envsnap")


def capture_for_rank(
    dirpath: Path, moment: str, rank: int, world_size: int, **kwargs: Any
) -> Path | None:
    """Capture on this rank at `moment` ("fit-start" or "resume"); never raises.

    Inside an initialised multi-rank process group, every rank joins the distributed capture
    and rank 0 writes one cluster manifest. Otherwise each rank writes its own manifest.
    Returns the path written on this rank, or None.
    """
    import envsnap

    try:
        import torch.distributed as dist

        distributed = dist.is_available() and dist.is_initialized() and world_size > 1
    except ImportError:
        distributed = False
    label = kwargs.pop("label", None) or moment
    try:
        if distributed:
            path = dirpath / f"{moment}-cluster.json"
            envsnap.capture_distributed(path if rank == 0 else None, label=label, **kwargs)
            return path if rank == 0 else None
        path = dirpath / f"{moment}-rank{rank}.json"
        envsnap.capture(path, label=label, **kwargs)
        return path
    except Exception as exc:  # a capture problem must not stop training
        logger.warning("envsnap: capture at %s failed on rank %d: %s", moment, rank, exc)
        return None
