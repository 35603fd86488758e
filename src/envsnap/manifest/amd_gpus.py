"""AMD GPUs as ROCm names them: LLVM target (gfx90a...), architecture and compute units.

ROCm builds of torch report AMD GPUs through the CUDA API names: `torch.cuda.get_device_name()`
gives the marketing name ("AMD Instinct MI250X / MI250") and collect_env appends the LLVM target
with its features ("(gfx90a:sramecc+:xnack-)"). There is no CUDA compute capability; the LLVM
target decides which kernels rocBLAS, hipBLASLt and MIOpen run, as the compute capability does
for cuBLAS and cuDNN. Compute units play the part of SMs (torch's multiProcessorCount on ROCm).

Source of every row: AMD, ROCm "GPU hardware specifications"
(https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html, ROCm/ROCm
docs/reference/gpu-arch-specs.rst), whose columns give the LLVM target name and compute units;
MI350X and MI355X from the later "AMD GPU specifications" page
(https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html). A board with two
graphics compute dies (MI250X, MI250) shows as two devices: its compute units are per die.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

AMD_SPECS = "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"
AMD_SPECS_CDNA4 = "https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html"


@dataclass(frozen=True)
class AmdGpu:
    """One AMD product: the names ROCm prints for it, its LLVM target and compute units."""

    name: str
    target: str
    architecture: str
    compute_units: int  # per visible device (per die on a two-die board)
    source: str = AMD_SPECS


MODELS: tuple[AmdGpu, ...] = (
    AmdGpu("MI355X", "gfx950", "CDNA4", 256, AMD_SPECS_CDNA4),
    AmdGpu("MI350X", "gfx950", "CDNA4", 256, AMD_SPECS_CDNA4),
    AmdGpu("MI325X", "gfx942", "CDNA3", 304),
    AmdGpu("MI300X", "gfx942", "CDNA3", 304),
    AmdGpu("MI300A", "gfx942", "CDNA3", 228),
    AmdGpu("MI250X", "gfx90a", "CDNA2", 110),  # 220 on the board, 110 per die
    AmdGpu("MI250", "gfx90a", "CDNA2", 104),  # 208 on the board, 104 per die
    AmdGpu("MI210", "gfx90a", "CDNA2", 104),
    AmdGpu("MI100", "gfx908", "CDNA", 120),
    AmdGpu("MI60", "gfx906", "GCN5.1", 64),
    AmdGpu("MI50", "gfx906", "GCN5.1", 60),
    AmdGpu("MI25", "gfx900", "GCN5.0", 64),
    AmdGpu("Radeon PRO W7900", "gfx1100", "RDNA3", 96),
    AmdGpu("Radeon PRO W7800", "gfx1100", "RDNA3", 70),
    AmdGpu("Radeon PRO W7700", "gfx1101", "RDNA3", 48),
    AmdGpu("Radeon PRO V710", "gfx1101", "RDNA3", 54),
    AmdGpu("Radeon PRO W6800", "gfx1030", "RDNA2", 60),
    AmdGpu("Radeon PRO V620", "gfx1030", "RDNA2", 72),
    AmdGpu("Radeon PRO W6600", "gfx1032", "RDNA2", 28),
    AmdGpu("Radeon Pro VII", "gfx906", "GCN5.1", 60),
    AmdGpu("Radeon RX 7900 XTX", "gfx1100", "RDNA3", 96),
    AmdGpu("Radeon RX 7900 XT", "gfx1100", "RDNA3", 84),
    AmdGpu("Radeon RX 7900 GRE", "gfx1100", "RDNA3", 80),
    AmdGpu("Radeon RX 7800 XT", "gfx1101", "RDNA3", 60),
    AmdGpu("Radeon RX 7700 XT", "gfx1101", "RDNA3", 54),
    AmdGpu("Radeon RX 7600", "gfx1102", "RDNA3", 32),
    AmdGpu("Radeon RX 6950 XT", "gfx1030", "RDNA2", 80),
    AmdGpu("Radeon RX 6900 XT", "gfx1030", "RDNA2", 80),
    AmdGpu("Radeon RX 6800 XT", "gfx1030", "RDNA2", 72),
    AmdGpu("Radeon RX 6800", "gfx1030", "RDNA2", 60),
    AmdGpu("Radeon RX 6700 XT", "gfx1031", "RDNA2", 40),
    AmdGpu("Radeon VII", "gfx906", "GCN5.1", 60),
)

_TARGET = re.compile(r"\bgfx[0-9a-f]{3,4}\b")


def _key(name: str) -> str:
    """'AMD Instinct MI250X / MI250' -> 'instinct mi250x / mi250'."""
    text = re.sub(r"\s+", " ", name.strip().lower())
    return re.sub(r"^amd ", "", text)


def _whole(word: str, text: str) -> bool:
    return re.search(rf"(?<![0-9a-z]){re.escape(word)}(?![0-9a-z])", text) is not None


@cache
def _by_target() -> dict[str, tuple[AmdGpu, ...]]:
    found: dict[str, list[AmdGpu]] = {}
    for model in MODELS:
        found.setdefault(model.target, []).append(model)
    return {target: tuple(models) for target, models in found.items()}


@dataclass(frozen=True)
class AmdFacts:
    """What an AMD device name (and the target collect_env prints) says; a field is None when
    the products it may denote disagree on it."""

    target: str | None
    architecture: str | None
    compute_units: int | None
    source: str


def target_in(text: str) -> str | None:
    """The LLVM target a ROCm device string names ('gfx90a:sramecc+:xnack-' -> 'gfx90a')."""
    match = _TARGET.search(text.lower())
    return match.group(0) if match else None


def amd_facts(name: str, target: str | None = None) -> AmdFacts | None:
    """Facts for an AMD device: the products its name denotes (every product a name lists, as
    "MI250X / MI250" does), narrowed to `target` when given; else those of the target alone.
    None when neither the name nor the target is in the table."""
    key = _key(name)
    named = [m for m in MODELS if _whole(_key(m.name), key)]
    target = target or target_in(name)
    if target is not None:
        named = [m for m in named if m.target == target] or list(_by_target().get(target, ()))
    if not named:
        return None if target is None else AmdFacts(target, None, None, AMD_SPECS)

    def agreed(values: set[object]) -> object:
        return next(iter(values)) if len(values) == 1 else None

    units = agreed({m.compute_units for m in named})
    family = agreed({m.architecture for m in named})
    return AmdFacts(
        target=str(agreed({m.target for m in named}) or target or "") or None,
        architecture=str(family) if family else None,
        compute_units=units if isinstance(units, int) else None,
        source=named[0].source,
    )


def is_amd(name: str) -> bool:
    """True for a device name ROCm prints for an AMD GPU."""
    key = name.strip().lower()
    return key.startswith(("amd ", "radeon", "instinct")) or target_in(key) is not None
