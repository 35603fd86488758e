"""Checkpoint audit: load only safely, and report what an exact resume would be missing.

- `inspect_checkpoint(path)`: a file (`torch.save` or safetensors), a directory of files, an
  `envsnap.training.resume` save, or a torch.distributed.checkpoint directory.
- `load_torch_safely(path)`: `torch.load(weights_only=True)`, refusing anything that needs
  arbitrary unpickling (`UnsafeCheckpointError`).
"""

from __future__ import annotations

from envsnap.training.checkpoint.inspect import CheckpointReport, inspect_checkpoint
from envsnap.training.checkpoint.safeload import (
    UnsafeCheckpointError,
    load_torch_safely,
    read_safetensors,
)

__all__ = [
    "CheckpointReport",
    "UnsafeCheckpointError",
    "inspect_checkpoint",
    "load_torch_safely",
    "read_safetensors",
]
