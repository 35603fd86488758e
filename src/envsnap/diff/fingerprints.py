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


# One key of a display path (changes.dotted): quoted where it holds a dot, else bare.
_KEY = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|([^.\[\]]+)')
# Sections whose keys are names: a data item, a file, a template.
_NAMED_BY_KEY = frozenset({"items", "files", "templates"})


def _named_thing(path: str) -> str:
    """What a fingerprint is of: the last named key, then the one holding it ('b.bin (in
    train)' for data.items.train.files["b.bin"].digest); the path where it names no key."""
    keys = [quoted or bare for quoted, bare in _KEY.findall(path)]
    named = [keys[i + 1] for i, key in enumerate(keys[:-1]) if key in _NAMED_BY_KEY]
    if not named:
        return path
    thing = named[-1]
    parent = named[-2] if len(named) > 1 and named[-2] != thing else None
    return f"{thing} (in {parent})" if parent else thing
