"""Per-item problems of what a job declared (data, tokenizer, templates), for --strict."""

from __future__ import annotations

from typing import Any


def item_errors(document: dict[str, Any]) -> list[str]:
    """Problems recorded on individual data, tokenizer and template items of a manifest
    document, one line each."""
    problems: list[str] = []
    data = document.get("data") or {}
    for name, item in (data.get("items") or {}).items():
        if item.get("error"):
            problems.append(f"data[{name}]: {item['error']}")
    tokenizer = document.get("tokenizer") or {}
    if tokenizer.get("error"):
        problems.append(f"tokenizer: {tokenizer['error']}")
    templates = document.get("templates") or {}
    for name, entry in (templates.get("templates") or {}).items():
        if entry.get("error"):
            problems.append(f"templates[{name}]: {entry['error']}")
    return problems
