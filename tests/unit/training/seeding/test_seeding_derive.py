"""Derived seeds: pinned, platform-independent, and distinct for every (master, rank, worker)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from envsnap.training.seeding import SeedManager, derive_seed

# Pinned: changing any of these changes every user's derived seeds, which needs a new
# DERIVATION_VERSION and a release note, never a silent edit.
GOLDEN = [
    ((0, "python", None, None), 341522173009988024),
    ((42, "torch", None, None), 3508302204201050473),
    ((42, "worker:torch", 3, 1), 3140081930505899826),
    ((2**40, "numpy", 7, None), 8055027581297653636),
    ((-5, "cuda", 0, 0), 4397703932710820574),
]


@pytest.mark.parametrize(("args", "expected"), GOLDEN)
def test_golden_values(args: tuple[int, str, int | None, int | None], expected: int) -> None:
    assert derive_seed(*args) == expected


def test_derivation_is_the_documented_sha256_of_canonical_json() -> None:
    payload = json.dumps(
        ["envsnap-seed/1", 42, "torch", 3, 1, None], separators=(",", ":"), sort_keys=True
    )
    expected = int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big") >> 1
    assert derive_seed(42, "torch", 3, 1) == expected


@pytest.mark.slow
def test_stable_across_processes_with_different_hash_salts() -> None:
    code = "from envsnap.training.seeding import derive_seed; print(derive_seed(42, 'torch', None, None))"
    outputs = set()
    for salt in ("0", "1", "random"):
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": salt},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout.strip())
    assert outputs == {str(GOLDEN[1][1])}


def test_reference_code_collision_does_not_happen() -> None:
    # `master + worker_id` makes master 42 / worker 1 equal master 43 / worker 0.
    assert derive_seed(42, "worker:torch", None, 1) != derive_seed(43, "worker:torch", None, 0)
    assert SeedManager(42).derive("x", worker=1) != SeedManager(43).derive("x", worker=0)


def test_distinct_over_a_large_grid() -> None:
    seen: dict[int, tuple[int, int | None, int | None]] = {}
    for master in range(200):
        for rank in (None, *range(8)):
            for worker in (None, *range(8)):
                seed = derive_seed(master, "torch", rank, worker)
                assert seed not in seen, f"{(master, rank, worker)} collides with {seen[seed]}"
                assert 0 <= seed < 2**63
                seen[seed] = (master, rank, worker)
    assert len(seen) == 200 * 9 * 9


def test_purposes_and_ranks_get_separate_streams() -> None:
    manager = SeedManager(7, rank=0)
    seeds = {purpose: manager.derive(purpose) for purpose in ("python", "numpy", "torch", "cuda")}
    assert len(set(seeds.values())) == 4
    assert SeedManager(7, rank=1).derive("torch") != seeds["torch"]
    assert SeedManager(7).derive("torch") != seeds["torch"]  # no rank differs from rank 0


@pytest.mark.parametrize("bad", [True, 1.5, "42"])
def test_rejects_non_integer_masters(bad: object) -> None:
    with pytest.raises(TypeError):
        derive_seed(bad, "torch")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SeedManager(bad)  # type: ignore[arg-type]


def test_rejects_bad_rank_and_purpose() -> None:
    with pytest.raises(ValueError, match="rank"):
        SeedManager(1, rank=-1)
    with pytest.raises(ValueError, match="purpose"):
        derive_seed(1, "")
