"""The base of the generated records (envsnap.manifest.records) and their JSON form."""

from __future__ import annotations

import math
from typing import Any, ClassVar

JsonValue = Any


class Record:
    """Base of the generated records: field-wise equality, a readable repr, no hashing."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(
            getattr(self, name) == getattr(other, name) for name in self.FIELDS
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({shown})"


class Section(Record):
    """Base of the section records: every section lists what it could not collect."""

    __slots__ = ()
    unknown: dict[str, str]


def plain(value: Any) -> Any:
    """The JSON form of a record (or of lists and dicts of them), as the model would dump it:
    tuples become lists and non-finite floats null. Raises TypeError for anything else that is
    not JSON (a foreign object, a key that is not text)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, Record):
        return {name: plain(getattr(value, name)) for name in value.FIELDS}
    if isinstance(value, dict):
        return {_key(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a key of type {type(key).__name__} is not text")
    return key


def as_float(value: float | None) -> float | None:
    """A float field holds a float, as the model's validator would make it."""
    return None if value is None else float(value)
