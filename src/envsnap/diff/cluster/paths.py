"""Flatten manifest documents to leaf paths and back, exactly.

A path is a tuple of dict keys. Lists and empty dicts are leaves: they are stored whole, so a
document rebuilt from its leaves equals the original byte for byte (the rank digests in a cluster
manifest depend on that). Paths are written in the differ's dotted form
(`packages.installed.torch.version`, `data.files["train.jsonl"].sha256`), and `parse_dotted`
reads that form back.
"""

from __future__ import annotations

from typing import Any

from envsnap.diff.changes import Path, dotted
from envsnap.manifest.canonical import canonical_bytes

Leaves = dict[Path, Any]

__all__ = ["Leaves", "Path", "dotted", "flatten", "parse_dotted", "unflatten", "value_key"]


def flatten(document: dict[str, Any]) -> Leaves:
    """Map every leaf of `document` to its value. Dicts recurse; everything else is a leaf."""
    leaves: Leaves = {}
    stack: list[tuple[Path, dict[str, Any]]] = [((), document)]
    while stack:
        prefix, node = stack.pop()
        for key, value in node.items():
            path = (*prefix, key)
            if isinstance(value, dict) and value:
                stack.append((path, value))
            else:
                leaves[path] = value
    return leaves


def unflatten(leaves: Leaves) -> dict[str, Any]:
    """Rebuild a document from its leaves (the inverse of `flatten`)."""
    document: dict[str, Any] = {}
    for path, value in leaves.items():
        node = document
        for key in path[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[path[-1]] = value
    return document


def parse_dotted(text: str) -> Path:
    """Read a path written by `dotted` back into its keys."""
    keys: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith('["', i):
            i += 2
            chars: list[str] = []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                chars.append(text[i])
                i += 1
            if not text.startswith('"]', i):
                raise ValueError(f"unterminated quoted key in path {text!r}")
            keys.append("".join(chars))
            i += 2
        else:
            if keys:
                if text[i] != ".":
                    raise ValueError(f"expected '.' at {i} in path {text!r}")
                i += 1
            end = i
            while end < n and text[end] not in '.["':
                end += 1
            if end == i:
                raise ValueError(f"empty key at {i} in path {text!r}")
            keys.append(text[i:end])
            i = end
    return tuple(keys)


def value_key(value: Any) -> Any:
    """A hashable key under which two JSON values are equal only when they are identical
    (`1`, `1.0` and `true` stay apart, unlike with `==`)."""
    if isinstance(value, (dict, list)):
        return canonical_bytes(value)
    return (type(value).__name__, value)
