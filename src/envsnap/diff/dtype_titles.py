"""Titles for a change of storage dtype: the default dtype, then which tensors moved from
which dtype to which.

A record lists a model's parameters, buffers and gradients by dtype (`precision.params.float32`
= bytes, elements, tensors). When the dtype changes, the two sides hold different keys, so the
generic title would print one side's counts against "(absent)"; this names each section and
the dtypes on each side instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from envsnap.diff.derived import Hit, shown

_SECTIONS = {"params": "parameters", "buffers": "buffers", "grads": "gradients"}
_DTYPE_ENTRY = re.compile(r"precision\.(?P<section>params|buffers|grads)\.(?P<dtype>[A-Za-z0-9_]+)")
_DEFAULT_DTYPE = "torch.default_dtype"


def dtype_title(hits: Sequence[Hit]) -> str | None:
    """'default dtype torch.float32 → torch.float64; parameters stored as float32 (161
    elements) → float64 (161 elements)' when every hit is the default dtype or a whole dtype
    entry of a section that lists a dtype on each side; None otherwise."""
    parts: list[str] = []
    sections: dict[str, tuple[list[str], list[str]]] = {}
    for hit in hits:
        if hit.path == _DEFAULT_DTYPE:
            parts.insert(0, f"default dtype {shown(hit.a)} → {shown(hit.b)}")
            continue
        found = _DTYPE_ENTRY.fullmatch(hit.path)
        if found is None:
            return None
        listed = sections.setdefault(_SECTIONS[found["section"]], ([], []))
        for side, value in zip(listed, (hit.a, hit.b), strict=True):
            if value is not None:
                side.append(_entry(found["dtype"], value))
    for section, (a, b) in sections.items():
        if not (a and b):
            # A dtype added beside one that did not change: the hits hold only the changed
            # entries, so a side's whole listing is not known here.
            return None
        parts.append(f"{section} stored as {', '.join(sorted(a))} → {', '.join(sorted(b))}")
    return "; ".join(parts) or None


def _entry(dtype: str, value: Any) -> str:
    elements = value.get("elements") if isinstance(value, dict) else None
    if not isinstance(elements, int) or isinstance(elements, bool):
        return dtype
    return f"{dtype} ({elements} element{'' if elements == 1 else 's'})"
