"""One time bound on an audit: a deadline for the whole evaluation, checked where work repeats.

The CLI sets it before the database loads; worker processes get the same instant. Checks sit in
the loops whose length the input decides (advisory files, advisories per manifest, characters
of a matched value), so input that is slow to evaluate ends with one line, never a hang. The
deadline is wall-clock time (`time.time`) because it is shared between processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from envsnap.errors import EnvsnapError

DEFAULT_SECONDS = 300.0

Bound = tuple[float, float]  # (the instant to end by, the seconds that were allowed)
_CURRENT: list[Bound] = []  # one bound while one is set


class AuditTimeout(EnvsnapError):
    """The audit went past its deadline."""


def current() -> Bound | None:
    """This process's bound, to hand to worker processes; None when unbounded."""
    return _CURRENT[0] if _CURRENT else None


def set_bound(bound: Bound | None) -> None:
    """Bound this process's audit work (None: no bound)."""
    _CURRENT[:] = [bound] if bound is not None else []


@contextmanager
def bounded(seconds: float | None) -> Iterator[None]:
    """Audit work inside the block ends by `seconds` from now (None: unbounded)."""
    previous = current()
    set_bound(None if seconds is None else (time.time() + seconds, seconds))
    try:
        yield
    finally:
        set_bound(previous)


def check() -> None:
    """Raise `AuditTimeout` once the deadline has passed."""
    if _CURRENT and time.time() > _CURRENT[0][0]:
        raise AuditTimeout(
            f"audit did not finish within {_CURRENT[0][1]:g} s (raise it with --timeout SECONDS)"
        )
