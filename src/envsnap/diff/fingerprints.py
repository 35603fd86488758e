"""Titles for differences between fingerprints (digests): say what differs, not the hashes.

A digest tells a reader nothing in a title; it stays in the finding's evidence.
"""

from __future__ import annotations

import re
from typing import Any

_DIGEST = re.compile(r"[a-z0-9]+:[0-9a-f]{32,}")
# Paths whose fingerprint has a name of its own: a glob of dotted parts, and the name
# ({key}: the path's last part).
_NAMED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("seeds", "state_digests", "*"), "{key} random state"),
)


def is_fingerprint(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def fingerprint_title(rule_title: str, path: str, a: Any, b: Any) -> str | None:
    """'python random state differs' when `a` and `b` are fingerprints (or one is absent);
    None when either is a value worth showing."""
    if not any(is_fingerprint(v) for v in (a, b)) or not all(
        v is None or is_fingerprint(v) for v in (a, b)
    ):
        return None
    parts = tuple(path.split("."))
    for pattern, name in _NAMED:
        if len(parts) == len(pattern) and all(
            p in ("*", part) for p, part in zip(pattern, parts, strict=True)
        ):
            return f"{name.format(key=parts[-1])} differs"
    return f"{rule_title}: {_named_thing(path)} differs"


# A bracketed quoted key of a dotted path: file and item names hold dots.
_QUOTED_KEY = re.compile(r'\["((?:[^"\\]|\\.)*)"\]')


def _named_thing(path: str) -> str:
    """What a fingerprint is of: its last quoted key, then the item holding it
    ('b.bin (in train)' for data.items["train"].files["b.bin"].digest); the path itself
    where it names no quoted key."""
    quoted = _QUOTED_KEY.findall(path)
    if not quoted:
        return path
    thing = quoted[-1]
    parent = quoted[-2] if len(quoted) > 1 and quoted[-2] != thing else None
    return f"{thing} (in {parent})" if parent else thing
