"""Seed management and determinism controls.

- `SeedManager(master_seed, rank=None)`: hash-derived seeds, `seed_all()`, `apply(level)`,
  DataLoader `worker_init_fn()` / `generator()`, `state()` / `restore()`.
- `deterministic(master_seed, ...)`: a context manager that restores the previous state on exit.
- `derive_seed(master, purpose, rank, worker)`: the derivation itself.

Nothing here imports torch or numpy at module import time.
"""

from envsnap.training.seeding.context import deterministic
from envsnap.training.seeding.derive import derive_seed
from envsnap.training.seeding.manager import (
    CUBLAS_CONFIGS,
    LEVELS,
    DeterminismWarning,
    SeedManager,
    WorkerSeeder,
    last_applied,
)
from envsnap.training.seeding.state import STATE_FORMAT

__all__ = [
    "CUBLAS_CONFIGS",
    "LEVELS",
    "STATE_FORMAT",
    "DeterminismWarning",
    "SeedManager",
    "WorkerSeeder",
    "derive_seed",
    "deterministic",
    "last_applied",
]
