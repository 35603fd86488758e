"""Delta debugging (Zeller's ddmin): the smallest subset of differences that still fails.

`test(subset)` answers True (the subset reproduces B's result), False, or None (out of budget:
stop and return what is known). Items keep their given (rank) order inside each chunk, so the
first halves tried hold the differences the differ ranked highest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

Test = Callable[[tuple[str, ...]], "bool | None"]


@dataclass
class DdminResult:
    subset: list[str]  # reproduces on its own (every item outside it is not needed)
    minimal: bool  # True: removing any single item stops it reproducing (1-minimal)


def _chunks(items: Sequence[str], n: int) -> list[list[str]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for index in range(n):
        end = start + size + (1 if index < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [chunk for chunk in out if chunk]


def ddmin(items: Sequence[str], test: Test) -> DdminResult:
    """Minimise `items` (already known to reproduce; the empty set known not to)."""
    current, n = list(items), 2
    while len(current) >= 2:
        chunks = _chunks(current, n)
        # With two chunks each complement is the other chunk: testing it again is wasted.
        candidates = [(chunk, 2) for chunk in chunks]
        if len(chunks) > 2:
            candidates += [
                ([item for item in current if item not in chunk], max(len(chunks) - 1, 2))
                for chunk in chunks
            ]
        for subset, next_n in candidates:
            verdict = test(tuple(subset))
            if verdict is None:
                return DdminResult(current, False)
            if verdict:
                current, n = subset, next_n
                break
        else:
            if n >= len(current):
                break
            n = min(2 * n, len(current))
    return DdminResult(current, True)
