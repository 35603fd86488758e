"""Structural changes between two manifest documents, keyed by identity, not list position.

Works on the JSON form of manifests, so it keeps working as sections gain fields. Dicts are
compared key by key (packages by normalised name, GPUs by index, files by path: the sections
already key them so). A list of objects is keyed by its first identity field (`index`, `path`,
`name`, `id`) when every item has a distinct one, so reordering is not a change. Equal subtrees
are skipped with one C-level `==`, which keeps 20k-package manifests fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from envsnap.manifest.sections import SECTION_MODELS

Path = tuple[str, ...]
ChangeKind = Literal["changed", "added", "removed", "uncaptured"]

# Fields of a list item that identify it, in order of preference.
IDENTITY_KEYS: tuple[str, ...] = ("index", "path", "name", "id", "key")
# Top-level keys that are not compared (the digest seals the rest; schema_version is checked
# on load).
SKIPPED_TOP: frozenset[str] = frozenset({"digest"})
_PLAIN = re.compile(r"^[A-Za-z0-9_\-+@:/]*$")


@dataclass(frozen=True)
class Change:
    """One difference. `side` names the side that lacks the value for `uncaptured`."""

    path: Path
    kind: ChangeKind
    a: Any = None
    b: Any = None
    side: Literal["a", "b", None] = None
    reason: str | None = None
    # The side lacking the value is an imported record whose format cannot state it.
    record_gap: bool = False

    @property
    def dotted(self) -> str:
        return dotted(self.path)


def dotted(path: Path) -> str:
    """Display form: `packages.installed.torch.version`; keys with dots are quoted
    (`data.files["train.jsonl"].sha256`)."""
    out: list[str] = []
    for part in path:
        if part and _PLAIN.match(part):
            out.append(("." if out else "") + part)
        else:
            quoted = part.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'["{quoted}"]')
    return "".join(out)


def _unique_on(items: list[Any], key: str) -> bool:
    values = [item.get(key) for item in items]
    return all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values) and len(
        set(map(str, values))
    ) == len(values)


def _identity_key(a: list[Any], b: list[Any]) -> str | None:
    """The first identity field that is unique within each (non-empty) side, if any.

    Uniqueness is per side: the same item appearing on both sides is exactly what is matched.
    """
    sides = [side for side in (a, b) if side]
    if not sides or not all(isinstance(item, dict) for side in sides for item in side):
        return None
    for key in IDENTITY_KEYS:
        if all(_unique_on(side, key) for side in sides):
            return key
    return None


def _keyed(value: Any, key: str | None) -> Any:
    if key is None:
        return value
    return {str(item[key]): item for item in value}


# The `unknown` maps of the two sides' section, keyed by paths relative to the section
# (collectors write nested keys such as "devices.0.sm_count" or "cudnn.allow_tf32").
Unknowns = tuple[dict[str, Any], dict[str, Any]]
_NO_UNKNOWNS: Unknowns = ({}, {})
# Stands in for a missing key: a key only one side holds always differs.
_ABSENT = object()


def _walk(a: Any, b: Any, path: Path, unknowns: Unknowns = _NO_UNKNOWNS) -> Iterator[Change]:
    if a == b:
        return
    if isinstance(a, list) and isinstance(b, list):
        key = _identity_key(a, b)
        if key is not None:
            yield from _walk(_keyed(a, key), _keyed(b, key), path, unknowns)
            return
        if all(isinstance(item, dict) for item in a + b):
            # Objects without identity: compare by position.
            a, b = dict(enumerate(a)), dict(enumerate(b))
            a = {str(k): v for k, v in a.items()}
            b = {str(k): v for k, v in b.items()}
        else:
            yield Change(path, "changed", a, b)
            return
    if isinstance(a, dict) and isinstance(b, dict):
        yield from _walk_dict(a, b, path, unknowns)
        return
    yield Change(path, "changed", a, b)


def _differing_keys(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Keys whose values differ or that one side lacks: in A's order when both hold the
    same keys, else sorted. A key held on both sides with equal values is no change whatever
    the unknown maps say; leaving it out before any path is built keeps a 200k-package map
    to one C-level `==` per package. An entry side B shares with A (see `load_side`) is the
    same object: `is` answers for it without comparing its fields."""
    if a.keys() == b.keys():
        return [key for key, value in a.items() if value is not b[key] and value != b[key]]
    return [
        key
        for key in sorted(a.keys() | b.keys())
        if (value := a.get(key, _ABSENT)) is not (other := b.get(key, _ABSENT)) and value != other
    ]


def _walk_dict(
    a: dict[str, Any], b: dict[str, Any], path: Path, unknowns: Unknowns
) -> Iterator[Change]:
    if len(path) == 1:  # a section: its `unknown` map covers every field below it
        raw_a, raw_b = a.get("unknown"), b.get("unknown")
        unknowns = (
            raw_a if isinstance(raw_a, dict) else {},
            raw_b if isinstance(raw_b, dict) else {},
        )
    unknown_a, unknown_b = unknowns
    for key in _differing_keys(a, b):
        if len(path) == 1 and key == "unknown" and (unknown_a or unknown_b):
            continue  # reported per field below
        here = (*path, key)
        relative = ".".join(here[1:]) if unknown_a or unknown_b else ""
        # A field one side could not read cannot be compared: say so instead of a value diff.
        if relative and (relative in unknown_a) != (relative in unknown_b):
            side: Literal["a", "b"] = "a" if relative in unknown_a else "b"
            if a.get(key) != b.get(key):
                reason = unknown_a.get(relative) if side == "a" else unknown_b.get(relative)
                yield Change(here, "uncaptured", a.get(key), b.get(key), side, reason)
            continue
        if key not in a:
            yield Change(here, "added", None, b[key])
        elif key not in b:
            yield Change(here, "removed", a[key], None)
        else:
            yield from _walk(a[key], b[key], here, unknowns)


def _section_reason(document: dict[str, Any], name: str) -> str | None:
    record = document.get("collectors", {}).get(name)
    if isinstance(record, dict):
        status, reason = record.get("status"), record.get("reason")
        return f"{status}: {reason}" if reason else str(status)
    return "not selected"


def compute_changes(doc_a: dict[str, Any], doc_b: dict[str, Any]) -> list[Change]:
    """Every difference between two manifest documents, in path order.

    A top-level section that is an object on one side and null or absent on the other is one
    `uncaptured` change for the whole section, never a cascade of field changes.
    """
    changes: list[Change] = []
    for key in sorted((set(doc_a) | set(doc_b)) - SKIPPED_TOP):
        a, b = doc_a.get(key), doc_b.get(key)
        if a == b:
            continue
        if key in SECTION_MODELS and (a is None) != (b is None):
            side: Literal["a", "b"] = "a" if a is None else "b"
            reason = _section_reason(doc_a if side == "a" else doc_b, key)
            changes.append(Change((key,), "uncaptured", a, b, side, reason))
            continue
        changes.extend(_walk(a, b, (key,)))
    if not (doc_a.get("imported_from") or doc_b.get("imported_from")):
        return changes  # record gaps come only from imported records
    return [_mark_record_gap(change, doc_a, doc_b) for change in changes]


def _mark_record_gap(change: Change, doc_a: dict[str, Any], doc_b: dict[str, Any]) -> Change:
    """Flag a value missing because the side lacking it was imported from another tool's
    record, which does not state it (a limit of that format, not a collector left off).

    An importer marks a partial listing with `<field>.*` in the section's `unknown` (collect_env
    lists only some packages and two environment variables): an entry only the other side has
    is then not stated by the record, not added or removed.
    """
    if change.kind in ("added", "removed"):
        side: Literal["a", "b"] = "a" if change.kind == "added" else "b"
        reason = _partial_listing(doc_a if side == "a" else doc_b, change.path)
        if reason is None:
            return change
        return Change(change.path, "uncaptured", change.a, change.b, side, reason, True)
    if change.kind != "uncaptured":
        return change
    missing = doc_a if change.side == "a" else doc_b
    if not missing.get("imported_from"):
        return change
    return replace(change, record_gap=True)


def _partial_listing(document: dict[str, Any], path: Path) -> str | None:
    """The reason an imported record gives for listing only part of the field holding `path`."""
    if not document.get("imported_from") or len(path) < 3:
        return None
    section = document.get(path[0])
    unknown = section.get("unknown") if isinstance(section, dict) else None
    if not isinstance(unknown, dict):
        return None
    reason = unknown.get(".".join(path[1:-1]) + ".*")
    return reason if isinstance(reason, str) else None
