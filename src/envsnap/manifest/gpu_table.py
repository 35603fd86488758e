"""GPU reference data: compute capability -> architecture and precision features, and names -> CC.

Kept as data so the collectors, the differ and the importers of other tools' reports all read the
same facts. The product table (gpu_models.json) lists NVIDIA GPUs from Kepler to Blackwell with
the names drivers print, compute capability, architecture and SM count, each entry with the URL
of its public source; entries no first-party datasheet confirms are marked `uncertain`. Sources
of the thresholds below:

- compute capabilities: NVIDIA "CUDA GPU Compute Capability" (https://developer.nvidia.com/cuda-gpus)
  and the legacy list (https://developer.nvidia.com/cuda-legacy-gpus);
- TF32 "available on NVIDIA GPUs since Ampere" (PyTorch docs, notes/cuda.md);
- BF16 needs CC >= 8.0 and FP8 needs CC >= 8.9 (Transformer Engine support matrix,
  https://nvidia.github.io/TransformerEngine/support_matrix.html);
- flash SDPA "only supports gpu architectures in the range [sm80, sm121]" (PyTorch
  aten/src/ATen/native/transformers/cuda/sdp_utils.cpp).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# Capability thresholds, as (major, minor).
TF32_MIN = (8, 0)
BF16_MIN = (8, 0)
FP8_MIN = (8, 9)
FLASH_SDPA_RANGE = ((8, 0), (12, 1))


@dataclass(frozen=True)
class Capabilities:
    """Precision features a compute capability offers."""

    tf32: bool
    bf16: bool
    fp8: bool
    flash_sdpa: bool


# Compute capability -> architecture name. Majors not listed fall back to _ARCH_BY_MAJOR.
ARCHITECTURES: dict[str, str] = {
    "7.0": "Volta",
    "7.2": "Volta",
    "7.5": "Turing",
    "8.0": "Ampere",
    "8.6": "Ampere",
    "8.7": "Ampere",
    "8.9": "Ada Lovelace",
    "9.0": "Hopper",
    "10.0": "Blackwell",
    "10.3": "Blackwell",
    "11.0": "Blackwell",
    "12.0": "Blackwell",
    "12.1": "Blackwell",
}
_ARCH_BY_MAJOR: dict[int, str] = {
    3: "Kepler",
    5: "Maxwell",
    6: "Pascal",
    7: "Volta",
    8: "Ampere",
    9: "Hopper",
    10: "Blackwell",
    12: "Blackwell",
}


@dataclass(frozen=True)
class GpuModel:
    """One entry of the GPU table (gpu_models.json), as a name resolves to it."""

    name: str
    variants: tuple[str, ...]
    compute_capability: str
    architecture: str
    sm_count: int | None
    segment: str
    source: str
    uncertain: bool
    note: str | None


_NVIDIA_PREFIX = re.compile(r"^nvidia\s+")
_SPACES = re.compile(r"[\s_]+")


def normalize_name(name: str) -> str:
    """'NVIDIA GeForce  RTX 3090' -> 'geforce rtx 3090': the key names are matched by."""
    return _NVIDIA_PREFIX.sub("", _SPACES.sub(" ", name.strip().lower()))


@cache
def models() -> tuple[GpuModel, ...]:
    """Every entry of the table, in file order."""
    text = resources.files("envsnap.manifest").joinpath("gpu_models.json").read_text("utf-8")
    return tuple(
        GpuModel(
            name=entry["name"],
            variants=tuple(entry["variants"]),
            compute_capability=entry["compute_capability"],
            architecture=entry["architecture"],
            sm_count=entry["sm_count"],
            segment=entry["segment"],
            source=entry["source"],
            uncertain=entry["uncertain"],
            note=entry.get("note"),
        )
        for entry in json.loads(text)["models"]
    )


@cache
def _index() -> dict[str, tuple[GpuModel, ...]]:
    """Normalized name or variant -> the entries that use it (a few variants are shared)."""
    index: dict[str, list[GpuModel]] = {}
    for model in models():
        for label in (model.name, *model.variants):
            matches = index.setdefault(normalize_name(label), [])
            if model not in matches:
                matches.append(model)
    return {key: tuple(value) for key, value in index.items()}


def _contained(key: str, name: str) -> bool:
    """`key` occurs in `name` as whole words ('v100' in 'tesla v100-sxm2-32gb', not 'a10' in
    'a100')."""
    return re.search(rf"(?<![0-9a-z]){re.escape(key)}(?![0-9a-z])", name) is not None


# The longest name a driver prints is under 64 characters; a longer one (a hostile manifest)
# would cost one search per table entry over its whole length, and denotes no GPU of the table.
MAX_NAME_CHARS = 256


def lookup(name: str) -> tuple[GpuModel, ...]:
    """The table entries a printed GPU name denotes: the exact name or variant, else the
    longest variant the name contains as whole words. Empty when none does."""
    if len(name) > MAX_NAME_CHARS:
        return ()
    key = normalize_name(name)
    index = _index()
    if key in index:
        return index[key]
    contained = [variant for variant in index if _contained(variant, key)]
    if not contained:
        return ()
    return index[max(contained, key=len)]


@dataclass(frozen=True)
class NameFacts:
    """What a GPU name alone says; a field is None when the matching entries disagree."""

    compute_capability: str | None
    architecture: str | None
    sm_count: int | None
    uncertain: bool


def facts_for_name(name: str) -> NameFacts | None:
    """Compute capability, architecture and SM count for a GPU name; None when not in the table.

    A shared variant (e.g. 'Orin') gives its compute capability but no SM count when the boards
    that print it differ there.
    """
    found = lookup(name)
    if not found:
        return None

    def agreed(values: set[Any]) -> Any:
        return next(iter(values)) if len(values) == 1 else None

    return NameFacts(
        compute_capability=agreed({m.compute_capability for m in found}),
        architecture=agreed({m.architecture for m in found}),
        sm_count=agreed({m.sm_count for m in found}),
        uncertain=any(m.uncertain for m in found),
    )


def parse_cc(cc: str) -> tuple[int, int]:
    """'8.6' -> (8, 6). Raises ValueError on anything else."""
    major, _, minor = cc.strip().partition(".")
    return int(major), int(minor or "0")


def format_cc(major: int, minor: int) -> str:
    return f"{major}.{minor}"


def arch_name(cc: str) -> str | None:
    """Architecture name for a compute capability, or None when it is not known."""
    if cc in ARCHITECTURES:
        return ARCHITECTURES[cc]
    try:
        return _ARCH_BY_MAJOR.get(parse_cc(cc)[0])
    except ValueError:
        return None


def capabilities(cc: str) -> Capabilities:
    """Precision features for a compute capability such as '8.0'. Raises ValueError if malformed."""
    version = parse_cc(cc)
    low, high = FLASH_SDPA_RANGE
    return Capabilities(
        tf32=version >= TF32_MIN,
        bf16=version >= BF16_MIN,
        fp8=version >= FP8_MIN,
        flash_sdpa=low <= version <= high,
    )


def cc_for_name(name: str) -> str | None:
    """Compute capability from a GPU product name ('NVIDIA A100-SXM4-80GB' -> '8.0')."""
    facts = facts_for_name(name)
    return facts.compute_capability if facts else None
