"""GPU devices named by a foreign record: what the name tells (via the GPU table), and the rest."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from envsnap.interop.importers.base import Imported
from envsnap.manifest.gpu_table import arch_name, capabilities, facts_for_name
from envsnap.manifest.sections.gpu import GpuDevice


def from_name(name: str | None) -> dict[str, Any]:
    """Compute capability, architecture, SM count and precision features from a product name.

    All are null when the name is not in the GPU table: a name alone is not enough to say
    more, and nothing is guessed.
    """
    facts = facts_for_name(name) if name else None
    cc = facts.compute_capability if facts else None
    caps = capabilities(cc) if cc else None
    return {
        "compute_capability": cc,
        "arch": (facts.architecture if facts else None) or (arch_name(cc) if cc else None),
        "capabilities": asdict(caps) if caps else None,
        "sm_count": facts.sm_count if facts else None,
    }


def complete(imported: Imported, key: str, device: dict[str, Any]) -> dict[str, Any]:
    """Give every device field the record does not state a null, listed in `unknown`."""
    for name, info in GpuDevice.model_fields.items():
        if info.is_required() and name not in device:
            device[name] = None
        if name in device and device[name] is None:
            imported.note_unknown("gpu", f"devices.{key}.{name}")
    return device
