"""`envsnap.deterministic(...)`: determinism for a block, then everything put back as it was.

Unlike "set deterministic=False, benchmark=True on exit", the previous values are restored
exactly: cuDNN flags, the deterministic-algorithms mode and its warn_only, the
`CUBLAS_WORKSPACE_CONFIG` variable (unset again if it was unset), every RNG state, and which
SeedManager the process last applied. This happens on exceptions too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from envsnap.manifest.records import DeterminismLevel
from envsnap.training.seeding import manager as _manager
from envsnap.training.seeding.manager import CUBLAS_ENV, SeedManager
from envsnap.training.seeding.state import installed


@dataclass(frozen=True)
class _TorchFlags:
    cudnn_deterministic: bool
    cudnn_benchmark: bool
    deterministic_algorithms: bool
    warn_only: bool


def _torch_flags() -> _TorchFlags | None:
    if not installed("torch"):
        return None
    import torch

    return _TorchFlags(
        cudnn_deterministic=bool(torch.backends.cudnn.deterministic),
        cudnn_benchmark=bool(torch.backends.cudnn.benchmark),
        deterministic_algorithms=bool(torch.are_deterministic_algorithms_enabled()),
        warn_only=bool(torch.is_deterministic_algorithms_warn_only_enabled()),
    )


def _set_torch_flags(flags: _TorchFlags) -> None:
    import torch

    torch.backends.cudnn.deterministic = flags.cudnn_deterministic
    torch.backends.cudnn.benchmark = flags.cudnn_benchmark
    torch.use_deterministic_algorithms(flags.deterministic_algorithms, warn_only=flags.warn_only)


def _set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextmanager
def deterministic(
    master_seed: int,
    *,
    level: DeterminismLevel = "deterministic",
    rank: int | None = None,
    warn_only: bool = False,
    cublas_workspace_config: str = ":4096:8",
    generators: Mapping[str, object] | None = None,
) -> Iterator[SeedManager]:
    """Seed and apply `level` for the block; restore the previous state on exit.

    `generators` (name -> numpy/torch/random generator) are snapshotted and restored too.
    """
    manager = SeedManager(master_seed, rank=rank)
    previous_manager = _manager.last_applied()
    previous_env = os.environ.get(CUBLAS_ENV)
    previous_flags = _torch_flags()
    previous_state: dict[str, Any] = manager.state(generators)
    try:
        manager.apply(level, warn_only=warn_only, cublas_workspace_config=cublas_workspace_config)
        yield manager
    finally:
        _set_env(CUBLAS_ENV, previous_env)
        if previous_flags is not None:
            _set_torch_flags(previous_flags)
        manager.restore(previous_state, generators)
        _manager.set_last_applied(previous_manager)
