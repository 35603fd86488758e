"""paused_gc: collection is off inside the block and back to the caller's setting after it."""

from __future__ import annotations

import gc

import pytest

from envsnap.gc_pause import paused_gc


def test_paused_inside_and_restored_after_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_caller_that_paused_it_keeps_it_paused() -> None:
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
