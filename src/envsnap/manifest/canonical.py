"""Canonical JSON: the byte form that digests are computed over.

Sorted keys, UTF-8 (no ASCII escaping), no insignificant whitespace. Two manifests with the
same content always have the same canonical bytes, whatever order their fields were built in.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

DIGEST_PREFIX = "sha256:"


def canonical_bytes(document: Any) -> bytes:
    """Serialise a JSON-compatible value to its canonical byte form."""
    text = json.dumps(
        document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return text.encode("utf-8")


def pretty_text(document: Any) -> str:
    """Human-friendly form with the same key order as the canonical one."""
    return (
        json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    )


def digest_of(document: dict[str, Any], *, exclude: str = "digest") -> str:
    """sha256 of the canonical form of `document` without its `exclude` key."""
    body = {key: value for key, value in document.items() if key != exclude}
    return DIGEST_PREFIX + hashlib.sha256(canonical_bytes(body)).hexdigest()
