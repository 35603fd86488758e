"""Glue for what a job declares: the capture budget for data, and per-item errors for --strict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.declared import DataDeclared, parse
from envsnap.manifest.model import Manifest


def with_data_budget(config: CaptureConfig, inputs: Mapping[str, Any]) -> CaptureConfig:
    """Extend the capture budget by data.budget_s when there is data to hash.

    Other collectors keep their own short limits; only the data collector uses the extra time,
    and it stops hashing by itself when data.budget_s runs out.
    """
    settings: DataDeclared = parse("data", config.declared.get("data", {}), "config")
    if not (settings.paths or settings.sources or inputs.get("data") is not None):
        return config
    return config.with_overrides(budget_s=config.budget_s + settings.budget_s)


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
