"""Seeded training on real torch (CPU): dropout plus a shuffled DataLoader with two workers."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
import torch

from envsnap.training.seeding import SeedManager
from tests.helpers.seeding_loop import train, train_first, train_rest

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def one_thread() -> None:
    torch.set_num_threads(1)


def test_two_seeded_runs_are_bitwise_identical_and_another_seed_differs() -> None:
    first, second, other = train(11, 2), train(11, 2), train(12, 2)
    assert first.losses == second.losses
    assert first.batches == second.batches
    assert first.params_sha256 == second.params_sha256
    assert first.losses != other.losses
    assert first.batches != other.batches
    assert first.params_sha256 != other.params_sha256


def test_restoring_state_mid_run_continues_bitwise_identically() -> None:
    whole = train(5, 3)
    _, checkpoint = train_first(5, 1)
    # Through bytes with weights_only=True, as a checkpoint file would be read.
    buffer = io.BytesIO()
    torch.save(checkpoint, buffer)
    buffer.seek(0)
    resumed = train_rest(torch.load(buffer, weights_only=True), 3)
    assert resumed.losses == whole.losses
    assert resumed.batches == whole.batches
    assert resumed.params_sha256 == whole.params_sha256


def test_resuming_without_the_rng_state_diverges() -> None:
    # The control for the test above: the RNG state is what makes the continuation exact.
    whole = train(5, 2)
    _, checkpoint = train_first(5, 1)
    checkpoint["rng"] = SeedManager(999).state(generators={"loader": torch.Generator()})
    resumed = train_rest(checkpoint, 2)
    assert resumed.losses[:4] == whole.losses[:4]
    assert resumed.losses[4:] != whole.losses[4:]


def test_seed_all_seeds_every_library_with_its_own_seed() -> None:
    manager = SeedManager(3)
    seeds = manager.seed_all()
    assert set(seeds) == {"python", "numpy", "torch"}  # no CUDA on this machine
    assert len(set(seeds.values())) == 3
    draws = (random.random(), float(np.random.rand()), float(torch.rand(1)))
    manager.seed_all()
    assert (random.random(), float(np.random.rand()), float(torch.rand(1))) == draws
    assert torch.initial_seed() == seeds["torch"]


def test_state_round_trips_generators_of_every_kind() -> None:
    manager = SeedManager(9)
    manager.seed_all()
    generators = {
        "py": random.Random(1),
        "np": np.random.default_rng(2),
        "mt": np.random.Generator(np.random.MT19937(3)),
        "rs": np.random.RandomState(4),
        "torch": torch.Generator().manual_seed(5),
    }

    def draw() -> list[float]:
        return [
            random.random(),
            float(np.random.rand()),
            float(torch.rand(1)),
            generators["py"].random(),  # type: ignore[attr-defined]
            float(generators["np"].random()),  # type: ignore[attr-defined]
            float(generators["mt"].random()),  # type: ignore[attr-defined]
            float(generators["rs"].rand()),  # type: ignore[attr-defined]
            float(torch.rand(1, generator=generators["torch"])),  # type: ignore[arg-type]
        ]

    buffer = io.BytesIO()
    torch.save(manager.state(generators), buffer)
    expected = draw()
    buffer.seek(0)
    manager.restore(torch.load(buffer, weights_only=True), generators)
    assert draw() == expected


def test_restore_refuses_a_mismatched_snapshot() -> None:
    from envsnap.errors import EnvsnapError

    manager = SeedManager(1)
    with pytest.raises(EnvsnapError, match="not an envsnap RNG snapshot"):
        manager.restore({"python": []})
    with pytest.raises(EnvsnapError, match="do not match"):
        manager.restore(manager.state({"g": torch.Generator()}), {})
    with pytest.raises(EnvsnapError, match="does not fit"):
        manager.restore(manager.state({"g": torch.Generator()}), {"g": random.Random()})
