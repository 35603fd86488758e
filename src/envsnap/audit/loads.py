"""Parsing manifests for the many-manifest audit, with orjson when it is installed.

Parsing JSON is most of what an audit of a fleet costs. orjson (the `fast` extra) parses a
manifest in about two thirds of the standard library's time and is as strict as
`envsnap.manifest.model.parse_document` where it matters: UTF-8 only, no NaN or Infinity, no
number beyond a double. Without it the standard json module is used with the same refusals
of NaN and Infinity. Either way a failure returns None, and the caller reads the file again
through the strict reader, whose one-line error names the problem.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _stdlib(data: bytes) -> Any:
    return json.loads(data.decode("utf-8"), parse_constant=_no_constant)


def _parser() -> Callable[[bytes], Any]:
    try:
        import orjson
    except ImportError:
        return _stdlib
    return orjson.loads


_PARSE = _parser()


def loads_object(data: bytes) -> dict[str, Any] | None:
    """The JSON object in `data`, or None when it is not one (or not valid JSON)."""
    try:
        document = _PARSE(data)
    except (ValueError, RecursionError):  # orjson.JSONDecodeError is a ValueError
        return None
    return document if isinstance(document, dict) else None


def engine() -> str:
    """Which parser is in use, for the bench and for `--version`-style reports."""
    return "orjson" if _PARSE is not _stdlib else "json"
