"""How a finding's title names the two sides it compares.

`envsnap diff` calls them A and B ("in A", "on B only"); `run --as` compares a recorded run
with this machine and says so. A title marks each mention of a side with `where(side,
preposition)`; the one findings builder replaces the marks with the report's `Sides`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Side = Literal["a", "b"]
Preposition = Literal["in", "on"]

# Unit separators: no title's wording has them, and a manifest value holding one is escaped
# when printed.
_MARK = re.compile("\x1f(in|on) (a|b)\x1f")


@dataclass(frozen=True)
class Sides:
    """The two sides' names; `phrases` when each name brings its own preposition."""

    a: str
    b: str
    phrases: bool = False

    def where(self, side: Side, preposition: Preposition) -> str:
        name = self.a if side == "a" else self.b
        return name if self.phrases else f"{preposition} {name}"


DIFF_SIDES = Sides("A", "B")


def where(side: Side, preposition: Preposition) -> str:
    """A mark for 'in A' / 'on B' in a title, named when the finding is built."""
    return f"\x1f{preposition} {side}\x1f"


def name_sides(text: str, sides: Sides) -> str:
    """`text` with every side mark replaced by the side's name."""

    def named(mark: re.Match[str]) -> str:
        side: Side = "a" if mark.group(2) == "a" else "b"
        return sides.where(side, "in" if mark.group(1) == "in" else "on")

    return _MARK.sub(named, text)
