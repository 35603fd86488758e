"""OSV `ECOSYSTEM` version ranges for PyPI, evaluated with PEP 440 ordering.

Events are read in order: `introduced` opens an interval, `fixed` closes it (exclusive),
`last_affected` closes it (inclusive). An interval left open affects every later version.
`introduced: "0"` means from the first release.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.version import Version

from envsnap.audit.conditions import as_version

if TYPE_CHECKING:
    from envsnap.audit.database import OsvRange


@dataclass(frozen=True)
class Range:
    low: Version | None  # None: from the first release
    high: Version | None  # None: no fix yet
    inclusive: bool  # True for last_affected

    def contains(self, version: Version) -> bool:
        if self.low is not None and version < self.low:
            return False
        if self.high is None:
            return True
        return version <= self.high if self.inclusive else version < self.high


def _version(text: str) -> Version:
    version = as_version(text)
    if version is None:
        raise ValueError(f"not a PEP 440 version in a range: {text!r}")
    return version


def compile_ranges(ranges: Sequence[OsvRange]) -> tuple[Range, ...]:
    out: list[Range] = []
    for rng in ranges:
        if rng.type != "ECOSYSTEM":
            raise ValueError(f"only ECOSYSTEM ranges are evaluated, got {rng.type}")
        low: Version | None = None
        opened = False
        for event in rng.events:
            if event.introduced is not None:
                low, opened = (
                    (None if event.introduced == "0" else _version(event.introduced)),
                    True,
                )
            elif opened and (event.fixed or event.last_affected):
                end = event.fixed or event.last_affected or ""
                out.append(Range(low, _version(end), event.last_affected is not None))
                opened = False
        if opened:
            out.append(Range(low, None, False))
    return tuple(out)


def affected(version_text: str, ranges: Sequence[Range]) -> bool:
    version = as_version(version_text)
    return version is not None and any(r.contains(version) for r in ranges)
