"""Per-item problems of what a job declared (data, tokenizer, templates), for --strict."""

from __future__ import annotations

from envsnap.manifest.model import Manifest


def item_errors(manifest: Manifest) -> list[str]:
    """Problems recorded on individual data, tokenizer and template items, one line each."""
    problems: list[str] = []
    if manifest.data is not None:
        for name, item in manifest.data.items.items():
            if item.error:
                problems.append(f"data[{name}]: {item.error}")
    if manifest.tokenizer is not None and manifest.tokenizer.error:
        problems.append(f"tokenizer: {manifest.tokenizer.error}")
    if manifest.templates is not None:
        for name, entry in manifest.templates.templates.items():
            if entry.error:
                problems.append(f"templates[{name}]: {entry.error}")
    return problems
