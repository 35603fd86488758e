"""Fingerprints of op outputs: a digest of the raw bits, and the error against a float64 reference.

Both take tensors but import nothing: the caller has torch loaded already.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
from typing import Any

DIGEST_CHARS = 16  # 64 bits: collisions between two real outputs are out of the question


def bits_digest(tensor: Any) -> str:
    """The first hex chars of sha256 over the output's bytes, as laid out in memory on the CPU.

    Read through ctypes rather than numpy: torch does not require numpy, and bf16 has no numpy
    dtype. Bits, not values: -0.0 and 0.0, or two NaN payloads, are different outputs.
    """
    cpu = tensor.detach().to("cpu").contiguous()
    size = cpu.numel() * cpu.element_size()
    raw = ctypes.string_at(cpu.data_ptr(), size) if size else b""
    return hashlib.sha256(raw).hexdigest()[:DIGEST_CHARS]


def max_rel_error(output: Any, reference: Any) -> float | None:
    """max |output - reference| / max |reference|, to 3 significant digits.

    Normalised by the largest reference magnitude, not element by element, so outputs near zero
    do not blow the figure up. 3 digits: enough to tell fp32 (~1e-7) from TF32 (~1e-4) or bf16
    (~1e-3) accumulation, and stable against the last bits of the reference. None when the
    reference is all zero or the error is not finite (JSON has no NaN).
    """
    low, high = reference.aminmax()  # no |reference| copy
    scale = max(-float(low), float(high))
    if not scale or not math.isfinite(scale):
        return None
    difference = output.detach().to("cpu").double()  # a copy: safe to work on in place
    error = float(difference.sub_(reference).abs_().max()) / scale
    if not math.isfinite(error):
        return None
    return float(f"{error:.3g}")
