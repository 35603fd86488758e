"""The fully populated fixture manifest, and edits the differ tests make to it."""

from __future__ import annotations

import copy
import json
from typing import Any

from envsnap.diff.report import SEVERITY_RANK, Report
from tests.helpers.paths import FIXTURES

FULL: dict[str, Any] = json.loads((FIXTURES / "manifests" / "full.json").read_text())


def full_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two independent copies of the full fixture manifest."""
    return copy.deepcopy(FULL), copy.deepcopy(FULL)


def install(doc: dict[str, Any], name: str, version: str) -> None:
    """Record `name` at `version` as installed, shaped like the fixture's own packages."""
    installed = doc["packages"]["installed"]
    installed[name] = {**installed["rich"], "name": name, "version": version}


def as_volta(doc: dict[str, Any]) -> None:
    """Turn every GPU of a document into a V100 (compute capability 7.0: no TF32, no bf16)."""
    for device in doc["gpu"]["devices"].values():
        device.update(name="Tesla V100-SXM2-32GB", compute_capability="7.0", arch="Volta")
        device["capabilities"] = {"bf16": False, "flash_sdpa": False, "fp8": False, "tf32": False}


def above_info(report: Report) -> list[str]:
    """'severity rule path' of every difference above info (a risk both sides share is not a
    difference between them)."""
    return [
        f"{f.severity} {f.rule} {f.path}"
        for f in report.findings
        if SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"] and f.basis != "shared"
    ]
