"""GPU devices named by a foreign record: what the name tells (via the GPU table), and the rest."""

from __future__ import annotations

import functools
from dataclasses import asdict
from typing import Any

from envsnap.interop.importers.base import Imported
from envsnap.interop.importers.bounds import MAX_GPU_DEVICES, MAX_GPU_NAME_CHARS
from envsnap.manifest.gpu_table import NameFacts, arch_name, capabilities, facts_for_name
from envsnap.manifest.sections.gpu import GpuDevice


@functools.lru_cache(maxsize=MAX_GPU_DEVICES)
def _facts(name: str) -> NameFacts | None:
    # A table lookup tries every variant against the name: eight boards of one kind cost one.
    return facts_for_name(name)


def from_name(name: str | None) -> dict[str, Any]:
    """Compute capability, architecture, SM count and precision features from a product name.

    All are null when the name is not in the GPU table (or longer than any product name): a
    name alone is not enough to say more, and nothing is guessed.
    """
    facts = _facts(name) if name and len(name) <= MAX_GPU_NAME_CHARS else None
    cc = facts.compute_capability if facts else None
    caps = capabilities(cc) if cc else None
    return {
        "compute_capability": cc,
        "arch": (facts.architecture if facts else None) or (arch_name(cc) if cc else None),
        "capabilities": asdict(caps) if caps else None,
        "sm_count": facts.sm_count if facts else None,
    }


def first_devices(imported: Imported, devices: dict[str, Any]) -> dict[str, Any]:
    """The first MAX_GPU_DEVICES devices a record lists; the rest are noted, not imported."""
    if len(devices) <= MAX_GPU_DEVICES:
        return devices
    imported.note_unknown(
        "gpu",
        "devices",
        f"only the first {MAX_GPU_DEVICES} of {len(devices)} listed GPUs are imported",
    )
    return dict(list(devices.items())[:MAX_GPU_DEVICES])


def complete(imported: Imported, key: str, device: dict[str, Any]) -> dict[str, Any]:
    """Give every device field the record does not state a null, listed in `unknown`."""
    for name, info in GpuDevice.model_fields.items():
        if info.is_required() and name not in device:
            device[name] = None
        if name in device and device[name] is None:
            imported.note_unknown("gpu", f"devices.{key}.{name}")
    return device
