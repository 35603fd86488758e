"""Public path of `envsnap.training.seeding` (kept so that `from envsnap.seeding import ...` works)."""

from envsnap.training.seeding import (
    CUBLAS_CONFIGS,
    LEVELS,
    STATE_FORMAT,
    DeterminismWarning,
    SeedManager,
    WorkerSeeder,
    derive_seed,
    deterministic,
    last_applied,
)

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
