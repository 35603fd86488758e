"""DataLoader workers: every worker of every rank draws its own reproducible randomness."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

from envsnap.training.seeding import SeedManager, WorkerSeeder

pytestmark = pytest.mark.slow


class Draws(Dataset[torch.Tensor]):
    """Each item: which worker made it, then one draw from python, numpy and torch."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        info = get_worker_info()
        worker = -1 if info is None else info.id
        row = [worker, random.random(), float(np.random.rand()), float(torch.rand(1))]
        return torch.tensor(row, dtype=torch.float64)


def _epochs(manager: SeedManager, epochs: int = 2) -> list[list[list[float]]]:
    loader = DataLoader(
        Draws(),
        batch_size=None,
        num_workers=2,
        generator=manager.generator(),
        worker_init_fn=manager.worker_init_fn(),
    )
    return [[row.tolist() for row in loader] for _ in range(epochs)]


def test_workers_and_ranks_draw_distinct_reproducible_values() -> None:
    rank0, rank1 = _epochs(SeedManager(42, rank=0)), _epochs(SeedManager(42, rank=1))
    assert _epochs(SeedManager(42, rank=0)) == rank0  # reproducible
    draws = [value for run in (rank0, rank1) for epoch in run for row in epoch for value in row[1:]]
    assert len(set(draws)) == len(draws)  # no two workers, ranks, epochs or libraries share one
    workers = {int(row[0]) for epoch in rank0 for row in epoch}
    assert workers == {0, 1}


def test_different_master_seed_changes_worker_draws() -> None:
    assert _epochs(SeedManager(42), 1) != _epochs(SeedManager(43), 1)


def test_worker_init_fn_pickles_for_spawned_workers() -> None:
    seeder = SeedManager(5, rank=2).worker_init_fn()
    assert pickle.loads(pickle.dumps(seeder)) == WorkerSeeder(5, 2)


def test_shared_generator_ignores_rank() -> None:
    a, b = SeedManager(8, rank=0), SeedManager(8, rank=1)
    assert a.generator(shared=True).initial_seed() == b.generator(shared=True).initial_seed()
    assert a.generator().initial_seed() != b.generator().initial_seed()
