"""The model inside its wrappers: DDP, DataParallel, FSDP, DeepSpeed, `torch.compile`.

A job hands envsnap the object it trains, which is often a wrapper: the same model is
`Net` in one process and `DistributedDataParallel(Net)` under torchrun. The model is recorded
as the innermost module, and the wrappers as a parallel fact, so 1 vs N processes is a layout
difference and never "model changed". Classes are matched by name along the MRO, so torch is
never imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envsnap.capturing.collectors.injob import qualname

# Wrapper class name -> the attribute holding the wrapped module.
WRAPPED_ATTRIBUTE: dict[str, str] = {
    "DistributedDataParallel": "module",
    "DataParallel": "module",
    "FullyShardedDataParallel": "module",
    "DeepSpeedEngine": "module",
    "OptimizedModule": "_orig_mod",
}
# fully_shard (FSDP2) does not wrap: it swaps the module's class for a subclass of FSDPModule.
FSDP2_MIXIN = "FSDPModule"
MAX_DEPTH = 8


@dataclass
class Unwrapped:
    """The innermost model, its class name, and the wrappers around it (outermost first)."""

    model: Any
    class_name: str
    wrappers: list[Any] = field(default_factory=list)
    wrapper_names: list[str] = field(default_factory=list)


def _class_names(obj: Any) -> list[str]:
    return [cls.__name__ for cls in type(obj).__mro__]


def unwrap(model: Any) -> Unwrapped:
    """Follow the wrappers of `model` down to the module they train."""
    found = Unwrapped(model=model, class_name=qualname(model))
    current = model
    for _ in range(MAX_DEPTH):
        names = _class_names(current)
        attribute = next((WRAPPED_ATTRIBUTE[n] for n in names if n in WRAPPED_ATTRIBUTE), None)
        inner = getattr(current, attribute, None) if attribute else None
        if inner is None or inner is current:
            break
        found.wrappers.append(current)
        found.wrapper_names.append(qualname(current))
        current = inner
    found.model = current
    found.class_name = qualname(current)
    mro = type(current).__mro__
    mixin = next((i for i, cls in enumerate(mro) if cls.__name__ == FSDP2_MIXIN), None)
    if mixin is not None and mixin + 1 < len(mro):
        # The class fully_shard made is named after the original; record the original.
        found.wrappers.append(current)
        found.wrapper_names.append(qualname(mro[mixin]))
        found.class_name = qualname(mro[mixin + 1])
    return found
