"""Pause Python's cyclic garbage collection around a short burst of allocation."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with cyclic garbage collection off, then restore the caller's setting.

    Importing pydantic, building models and parsing a large manifest allocate tens of
    thousands of objects, and each burst triggers collections that rescan them. Reference
    counting still frees everything the block drops; only reference cycles wait for the next
    collection. Meant for short-lived processes (the CLI): in a long-lived one, a pause only
    postpones the full collection the burst brings on, it does not save it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
