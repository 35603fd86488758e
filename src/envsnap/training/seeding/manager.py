"""`SeedManager`: seed every library from one master seed and apply a determinism level.

Levels:
- ``off``: nothing is seeded or changed; the master seed is only declared.
- ``seeded``: python `random`, numpy's legacy global RNG, torch CPU and every CUDA device are
  seeded with their own derived seeds. CUDA seeding is lazy (queued by torch until CUDA
  initialises), so it never initialises CUDA.
- ``deterministic``: seeded, plus `cudnn.deterministic=True`, `cudnn.benchmark=False`,
  `torch.use_deterministic_algorithms(True, warn_only=...)` and `CUBLAS_WORKSPACE_CONFIG`.

cuBLAS reads `CUBLAS_WORKSPACE_CONFIG` when it creates its handle, so setting it once CUDA is
initialised may do nothing. That case is warned about and recorded, never silently ignored.
"""

from __future__ import annotations

import os
import random
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

from envsnap.manifest.records import DeterminismFlags, DeterminismLevel
from envsnap.training.seeding.derive import derive_seed, numpy_seed_words
from envsnap.training.seeding.state import capture_state, cuda_initialized, installed, restore_state

CUBLAS_ENV = "CUBLAS_WORKSPACE_CONFIG"
# ":4096:8" costs ~24 MiB of workspace; ":16:8" saves memory and may limit performance.
CUBLAS_CONFIGS: tuple[str, ...] = (":4096:8", ":16:8")
LEVELS: tuple[str, ...] = get_args(DeterminismLevel)
# Libraries seeded by seed_all, in order. Each gets its own derived seed.
LIBRARIES: tuple[str, ...] = ("python", "numpy", "torch", "cuda")

# The SeedManager last applied in this process; a dict so no `global` statement is needed.
_applied: dict[str, SeedManager | None] = {"last": None}
_lock = threading.Lock()


class DeterminismWarning(UserWarning):
    """A determinism setting may not take effect as asked (e.g. CUDA already initialised)."""


def last_applied() -> SeedManager | None:
    """The SeedManager most recently applied in this process (what `capture` records)."""
    return _applied["last"]


def set_last_applied(manager: SeedManager | None) -> None:
    """Record `manager` as the one in effect (the context manager uses it to undo)."""
    with _lock:
        _applied["last"] = manager


def late_cublas_warning(cuda_initialized: bool, previous: str | None, wanted: str) -> str | None:
    """The warning due when `wanted` is set after CUDA started (None when it is not due)."""
    if not cuda_initialized or previous == wanted:
        return None
    return (
        f"CUDA is already initialised: cuBLAS may already have read {CUBLAS_ENV} "
        f"(it was {previous or 'unset'}), so {wanted} may have no effect; set it in the "
        "environment before the process starts"
    )


@dataclass(frozen=True)
class WorkerSeeder:
    """A picklable DataLoader `worker_init_fn`: each worker of each rank gets its own seeds.

    The DataLoader gives every worker a base seed drawn from its generator each time an
    iterator starts; mixing it in gives fresh but reproducible randomness every epoch.
    """

    master_seed: int
    rank: int | None = None

    def __call__(self, worker_id: int) -> None:
        import torch

        info = torch.utils.data.get_worker_info()
        stream = int(info.seed) if info is not None else int(torch.initial_seed())
        seeds = {
            library: derive_seed(
                self.master_seed, f"worker:{library}", self.rank, worker_id, stream
            )
            for library in ("python", "numpy", "torch")
        }
        random.seed(seeds["python"])
        torch.manual_seed(seeds["torch"])
        if installed("numpy"):
            import numpy

            numpy.random.seed(numpy_seed_words(seeds["numpy"]))


class SeedManager:
    """Seeds derived from one master seed, for one process (optionally one distributed rank)."""

    def __init__(self, master_seed: int, *, rank: int | None = None) -> None:
        if isinstance(master_seed, bool) or not isinstance(master_seed, int):
            raise TypeError(f"master_seed must be an int, not {type(master_seed).__name__}")
        if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
            raise ValueError(f"rank must be a non-negative int or None, not {rank!r}")
        self.master_seed = master_seed
        self.rank = rank
        self.level: DeterminismLevel | None = None
        self.seeded: dict[str, int] = {}
        self.flags: DeterminismFlags | None = None
        self.warnings: list[str] = []

    def __repr__(self) -> str:
        return f"SeedManager({self.master_seed}, rank={self.rank}, level={self.level!r})"

    def derive(self, purpose: str, *, worker: int | None = None) -> int:
        """The seed for `purpose` (and `worker`) of this manager's rank."""
        return derive_seed(self.master_seed, purpose, self.rank, worker)

    def seed_all(self) -> dict[str, int]:
        """Seed python, numpy, torch CPU and CUDA (lazily). Returns library -> seed used."""
        seeded: dict[str, int] = {"python": self.derive("python")}
        random.seed(seeded["python"])
        if installed("numpy"):
            import numpy

            seeded["numpy"] = self.derive("numpy")
            numpy.random.seed(numpy_seed_words(seeded["numpy"]))
        if installed("torch"):
            import torch

            seeded["torch"] = self.derive("torch")
            torch.manual_seed(seeded["torch"])
            # A build-time fact; asking the driver (is_available) could start CUDA. The seed is
            # queued by torch until CUDA initialises, so seeding never forces initialisation.
            if torch.version.cuda is not None:
                seeded["cuda"] = self.derive("cuda")
                torch.cuda.manual_seed_all(seeded["cuda"])
        self.seeded = seeded
        if self.level is None:
            self.level = "seeded"
        set_last_applied(self)
        return dict(seeded)

    def apply(
        self,
        level: DeterminismLevel = "seeded",
        *,
        warn_only: bool = False,
        cublas_workspace_config: str = ":4096:8",
    ) -> DeterminismFlags | None:
        """Apply a determinism level (see the module docs). Returns the flags it set."""
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        if cublas_workspace_config not in CUBLAS_CONFIGS:
            raise ValueError(
                f"cublas_workspace_config must be one of {', '.join(CUBLAS_CONFIGS)}, "
                f"not {cublas_workspace_config!r}"
            )
        self.warnings = []
        self.flags = None
        if level != "off":
            self.seed_all()
        if level == "deterministic":
            self.flags = self._make_deterministic(warn_only, cublas_workspace_config)
        self.level = level
        set_last_applied(self)
        return self.flags

    def _make_deterministic(self, warn_only: bool, cublas: str) -> DeterminismFlags:
        if not installed("torch"):
            os.environ[CUBLAS_ENV] = cublas
            self._warn("torch is not installed: only python and numpy were seeded")
            return DeterminismFlags(cublas_workspace_config=cublas)
        import torch

        cuda_was_initialized = bool(cuda_initialized())
        previous = os.environ.get(CUBLAS_ENV)
        late = late_cublas_warning(cuda_was_initialized, previous, cublas)
        if late:
            self._warn(late)
        os.environ[CUBLAS_ENV] = cublas
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=warn_only)
        return DeterminismFlags(
            cudnn_deterministic=True,
            cudnn_benchmark=False,
            deterministic_algorithms=True,
            warn_only=warn_only,
            cublas_workspace_config=cublas,
            cuda_initialized_before=cuda_was_initialized,
        )

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        warnings.warn(f"envsnap: {message}", DeterminismWarning, stacklevel=4)

    def worker_init_fn(self) -> WorkerSeeder:
        """A DataLoader `worker_init_fn` seeding python, numpy and torch in each worker."""
        return WorkerSeeder(self.master_seed, self.rank)

    def generator(self, purpose: str = "dataloader", *, shared: bool = False) -> Any:
        """A CPU `torch.Generator` for a DataLoader (shuffle order and worker base seeds).

        `shared=True` ignores the rank, so every rank draws the same order (for samplers that
        split one shuffled order across ranks themselves).
        """
        import torch

        seed = derive_seed(self.master_seed, purpose, None if shared else self.rank)
        generator = torch.Generator()
        generator.manual_seed(seed)
        return generator

    def state(self, generators: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Every RNG state as plain data, loadable with `torch.load(weights_only=True)`."""
        return capture_state(generators)

    def restore(
        self, state: Mapping[str, Any], generators: Mapping[str, object] | None = None
    ) -> None:
        """Restore a `state()` snapshot (pass the same named generators)."""
        restore_state(state, generators)
