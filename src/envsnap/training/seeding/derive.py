"""Seed derivation: one master seed -> an independent, stable seed per (purpose, rank, worker).

Seeds are the first 63 bits of sha256 over a canonical JSON encoding of the inputs. They are the
same on every platform and Python version (Python's `hash()` is salted per process for str), and
every input is a separate field, so unlike `master + worker_id` no two combinations share a seed
by construction: master 42 / worker 1 and master 43 / worker 0 get unrelated seeds.
"""

from __future__ import annotations

import hashlib

from envsnap.manifest.canonical import canonical_bytes

# Bumping this changes every derived seed; golden-value tests pin the current one.
DERIVATION_VERSION = "envsnap-seed/1"
SEED_BITS = 63  # fits a signed 64-bit integer: JSON, torch and numpy all take it safely


def derive_seed(
    master: int,
    purpose: str,
    rank: int | None = None,
    worker: int | None = None,
    stream: int | None = None,
) -> int:
    """The seed for `purpose` of `rank`/`worker`, derived from `master` by sha256.

    `stream` separates repeated uses of the same worker (the DataLoader's per-iterator base
    seed), so workers draw fresh, reproducible randomness every epoch.
    """
    for name, value in (("master", master), ("rank", rank), ("worker", worker), ("stream", stream)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not isinstance(purpose, str) or not purpose:
        raise ValueError("purpose must be a non-empty string")
    payload = canonical_bytes([DERIVATION_VERSION, master, purpose, rank, worker, stream])
    digest = hashlib.sha256(payload).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def numpy_seed_words(seed: int) -> list[int]:
    """Split a 63-bit seed into the 32-bit words numpy's legacy `seed()` accepts, losslessly."""
    return [seed & 0xFFFFFFFF, seed >> 32]
