"""Did the run use float16 loss scaling? Only then does an exact resume need the scaler's state.

A GradScaler exists for float16 training (bfloat16 and float32 have the float32 exponent range
and need no loss scaling), so a run without one loses nothing when a checkpoint holds no scaler.
The evidence, strongest first:

- the checkpoint's scaler entry: a saved enabled GradScaler (non-empty state) was used; a
  disabled one saves `{}`;
- float16 tensors in the model state: float16 training needs loss scaling;
- the run's manifest (`precision.scaler`, the declared `precision.amp_dtype`);
- an envsnap training-state save: `save_training_state` is given the scaler when there is one,
  so a save without a scaler entry records a run without loss scaling.

With none of these, whether the run scaled its loss is unknown and the scaler stays required.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from envsnap.training.checkpoint.layout import FORMAT
from envsnap.training.checkpoint.safeload import TensorInfo

# Autocast dtypes that never need a loss scaler: their exponent range is float32's.
NO_SCALING_DTYPES = frozenset({"none", "bfloat16", "float32"})
SCALER_KEYS = ("scaler", "grad_scaler", "amp_scaler", "loss_scaler", "native_amp_scaling_state")


@dataclass(frozen=True)
class LossScaling:
    """`used`: True, False, or None when nothing tells; `reason`: what decided it."""

    used: bool | None
    reason: str


def loss_scaling(document: Any, precision: Mapping[str, Any] | None) -> LossScaling:
    """Decide from a loaded checkpoint document and the run's manifest `precision` section."""
    state = document if isinstance(document, Mapping) else {}
    for decide in (_scaler_entry, _float16_weights):
        found = decide(state)
        if found is not None:
            return found
    declared = _manifest(precision)
    if declared is not None:
        return declared
    if state.get("format") == FORMAT:
        return LossScaling(False, "envsnap's save_training_state was given no GradScaler")
    return LossScaling(
        None,
        "nothing in the checkpoint says whether the run used float16 loss scaling "
        "(pass the run's manifest with --manifest to decide)",
    )


def _scaler_entry(state: Mapping[str, Any]) -> LossScaling | None:
    for key in SCALER_KEYS:
        value = state.get(key)
        if isinstance(value, Mapping):
            if value:
                return LossScaling(True, f"the checkpoint holds GradScaler state ({key})")
            # GradScaler(enabled=False).state_dict() is {}: a scaler that never scaled.
            return LossScaling(False, f"the saved GradScaler ({key}) was disabled")
    return None


def _float16_weights(state: Mapping[str, Any]) -> LossScaling | None:
    model = next(
        (state[k] for k in ("model", "state_dict", "model_state_dict") if k in state), None
    )
    tensors = model.values() if isinstance(model, Mapping) else ()
    if any(_dtype_name(t) == "float16" for t in tensors):
        return LossScaling(True, "the model holds float16 tensors")
    return None


def _dtype_name(tensor: object) -> str | None:
    if isinstance(tensor, TensorInfo):  # safetensors' dtype names
        return "float16" if tensor.dtype == "F16" else tensor.dtype
    dtype = getattr(tensor, "dtype", None)
    return str(dtype).removeprefix("torch.") if dtype is not None else None


def _manifest(precision: Mapping[str, Any] | None) -> LossScaling | None:
    if not precision:
        return None
    scaler = precision.get("scaler")
    amp = precision.get("amp_dtype")
    if isinstance(scaler, Mapping) and scaler.get("enabled"):
        return LossScaling(True, "the run's manifest records an enabled GradScaler")
    if amp == "float16":
        return LossScaling(True, "the run's manifest declares float16 autocast")
    if amp is not None and str(amp) in NO_SCALING_DTYPES:
        return LossScaling(False, f"the run's manifest declares autocast {amp}, no loss scaling")
    if isinstance(scaler, Mapping):
        return LossScaling(False, "the run's manifest records a disabled GradScaler")
    return None
