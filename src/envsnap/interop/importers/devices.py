"""GPU devices named by a foreign record: what the name tells (via the GPU table), and the rest."""

from __future__ import annotations

import functools
import re
from dataclasses import asdict
from typing import Any

from envsnap.interop.importers.base import Imported
from envsnap.interop.importers.bounds import MAX_GPU_DEVICES, MAX_GPU_NAME_CHARS
from envsnap.manifest.amd_gpus import amd_facts, is_amd
from envsnap.manifest.gpu_table import NameFacts, arch_name, capabilities, facts_for_name
from envsnap.manifest.sections.gpu import GpuDevice

_MIG = re.compile(r"\bMIG\b")


@functools.lru_cache(maxsize=MAX_GPU_DEVICES)
def _facts(name: str) -> NameFacts | None:
    # A table lookup tries every variant against the name: eight boards of one kind cost one.
    return facts_for_name(name)


def from_name(name: str | None, target: str | None = None) -> dict[str, Any]:
    """Compute capability, architecture, SM count and precision features from a product name.

    All are null when the name is not in the GPU table (or longer than any product name): a
    name alone is not enough to say more, and nothing is guessed. An AMD GPU (its name, or the
    LLVM `target` ROCm prints) has no compute capability: its architecture is the LLVM target
    (gfx90a) and its SM count the compute units of one device (manifest/amd_gpus.py). A MIG
    slice has the SMs of its profile, not of the GPU its name names: its count is null.
    """
    if name and len(name) > MAX_GPU_NAME_CHARS:
        name = None
    if target is not None or (name and is_amd(name)):
        amd = amd_facts(name or "", target)
        return {
            "compute_capability": None,
            "arch": (amd.target if amd else None) or target,
            "capabilities": None,
            "sm_count": amd.compute_units if amd else None,
        }
    facts = _facts(name) if name else None
    cc = facts.compute_capability if facts else None
    caps = capabilities(cc) if cc else None
    mig = name is not None and _MIG.search(name) is not None
    return {
        "compute_capability": cc,
        "arch": (facts.architecture if facts else None) or (arch_name(cc) if cc else None),
        "capabilities": asdict(caps) if caps else None,
        "sm_count": facts.sm_count if facts and not mig else None,
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
