"""GPU reference data: compute capability -> architecture and precision features, and names -> CC.

Kept as data so the collectors, the differ and the importers of other tools' reports all read the
same facts. Sources:

- compute capabilities: NVIDIA "CUDA GPU Compute Capability" (https://developer.nvidia.com/cuda-gpus)
  and the legacy list (https://developer.nvidia.com/cuda-legacy-gpus);
- TF32 "available on NVIDIA GPUs since Ampere" (PyTorch docs, notes/cuda.md);
- BF16 needs CC >= 8.0 and FP8 needs CC >= 8.9 (Transformer Engine support matrix,
  https://nvidia.github.io/TransformerEngine/support_matrix.html);
- flash SDPA "only supports gpu architectures in the range [sm80, sm121]" (PyTorch
  aten/src/ATen/native/transformers/cuda/sdp_utils.cpp).

A10G, A800, H800 and H20 are not on NVIDIA's list; they are assumed to match their base parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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

# Product-name patterns -> compute capability, first match wins, so more specific names come
# before the names they contain ("RTX 6000 Ada" before "Quadro RTX 6000", "GB200" is kept apart
# from "B200" by the word boundary).
MODEL_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), cc)
    for pattern, cc in (
        (r"\bRTX PRO \d{4}\b.*Blackwell", "12.0"),
        (r"\bRTX 50\d0\b", "12.0"),
        (r"\bGB10\b", "12.1"),
        (r"\bG?B300\b", "10.3"),
        (r"\bG?B200\b", "10.0"),
        (r"\bGH200\b", "9.0"),
        (r"\bH(100|200|800|20)\b", "9.0"),
        (r"\bRTX 6000 Ada\b", "8.9"),
        (r"\bRTX 40\d0\b", "8.9"),
        (r"\bL(4|40|40S)\b", "8.9"),
        (r"\bA(100|800|30)\b", "8.0"),
        (r"\bRTX A\d{4}\b", "8.6"),
        (r"\bRTX 30\d0\b", "8.6"),
        (r"\bA(10G?|40|16|2)\b", "8.6"),
        (r"\bT4\b", "7.5"),
        (r"\bRTX 20\d0\b", "7.5"),
        (r"\bQuadro RTX\b", "7.5"),
        (r"\bV100\b", "7.0"),
        (r"\bGV100\b", "7.0"),
        (r"\bTITAN V\b", "7.0"),
    )
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
    for pattern, cc in MODEL_PATTERNS:
        if pattern.search(name):
            return cc
    return None
