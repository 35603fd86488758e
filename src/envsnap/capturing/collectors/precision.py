"""`precision`: dtypes of the model, autocast, GradScaler, optimizer, scheduler, declared facts.

Reads only metadata (dtype, numel, element size): no tensor is copied or moved, so a model of
any size costs one pass over its parameter list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.injob import (
    declared_values,
    dtype_name,
    json_safe,
    loaded_torch,
    qualname,
)
from envsnap.capturing.collectors.wrappers import unwrap
from envsnap.manifest.records import (
    AutocastState,
    DtypeStats,
    OptimizerInfo,
    PrecisionSection,
    ScalerState,
    SchedulerInfo,
)

_OBJECTS = ("model", "optimizer", "scheduler", "scaler")
_AUTOCAST_DEVICES = ("cpu", "cuda")


def dtype_histogram(tensors: Iterable[Any]) -> dict[str, DtypeStats]:
    """Tensor count, elements and bytes per dtype, from metadata only."""
    stats: dict[str, DtypeStats] = {}
    for tensor in tensors:
        name = dtype_name(tensor.dtype)
        numel = int(tensor.numel())
        entry = stats.setdefault(name, DtypeStats(tensors=0, elements=0, bytes=0))
        entry.tensors += 1
        entry.elements += numel
        entry.bytes += numel * int(tensor.element_size())
    return dict(sorted(stats.items()))


def _model_facts(model: Any, section: PrecisionSection) -> None:
    if not (hasattr(model, "parameters") and hasattr(model, "buffers")):
        raise TypeError(f"expected a torch.nn.Module, got {type(model).__name__}")
    # The model inside DDP / FSDP / torch.compile: the wrappers are a parallel fact.
    found = unwrap(model)
    model = found.model
    params = list(model.parameters())
    section.model_class = found.class_name
    section.params = dtype_histogram(params)
    section.buffers = dtype_histogram(model.buffers())
    section.grads = dtype_histogram(p.grad for p in params if p.grad is not None)
    section.trainable_elements = sum(int(p.numel()) for p in params if p.requires_grad)
    section.params_device = model_device(params)
    if "device" not in section.sources:
        # A declared device wins: a job often captures before `model.to(device)`.
        section.device = section.params_device


def model_device(params: Iterable[Any]) -> str | None:
    """The device type the parameters live on: where the model's math runs."""
    kinds = {str(getattr(getattr(p, "device", None), "type", "")) for p in params} - {""}
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "mixed"


# Before torch 2.4 autocast was read per backend: is_autocast_enabled() meant CUDA, and the
# dtype came from get_autocast_gpu_dtype() / get_autocast_cpu_dtype().
_LEGACY_AUTOCAST = {
    "cpu": ("is_autocast_cpu_enabled", "get_autocast_cpu_dtype"),
    "cuda": ("is_autocast_enabled", "get_autocast_gpu_dtype"),
}


def _autocast_of(torch: Any, device: str) -> AutocastState | None:
    try:
        enabled = bool(torch.is_autocast_enabled(device))
        dtype = dtype_name(torch.get_autocast_dtype(device))
    except (TypeError, RuntimeError, AttributeError):
        enabled_name, dtype_fn = _LEGACY_AUTOCAST[device]
        try:
            enabled = bool(getattr(torch, enabled_name)())
            dtype = dtype_name(getattr(torch, dtype_fn)())
        except (TypeError, RuntimeError, AttributeError):
            return None  # no such backend in this torch
    return AutocastState(enabled=enabled, dtype=dtype)


def _autocast(torch: Any) -> dict[str, AutocastState]:
    states = {device: _autocast_of(torch, device) for device in _AUTOCAST_DEVICES}
    return {device: state for device, state in states.items() if state is not None}


def _scaler(scaler: Any) -> ScalerState:
    if not hasattr(scaler, "is_enabled") or not hasattr(scaler, "get_scale"):
        raise TypeError(f"expected a torch.amp.GradScaler, got {type(scaler).__name__}")
    enabled = bool(scaler.is_enabled())
    return ScalerState(
        class_name=qualname(scaler),
        enabled=enabled,
        device=str(getattr(scaler, "_device", None) or "") or None,
        scale=float(scaler.get_scale()) if enabled else None,
        growth_factor=float(scaler.get_growth_factor()),
        backoff_factor=float(scaler.get_backoff_factor()),
        growth_interval=int(scaler.get_growth_interval()),
    )


def _optimizer(optimizer: Any) -> OptimizerInfo:
    groups = getattr(optimizer, "param_groups", None)
    if not isinstance(groups, list):
        raise TypeError(f"expected a torch.optim.Optimizer, got {type(optimizer).__name__}")
    param_groups: dict[str, dict[str, Any]] = {}
    for index, group in enumerate(groups):
        params = list(group.get("params", ()))
        hyper = {str(k): json_safe(v) for k, v in sorted(group.items()) if k != "params"}
        hyper["num_tensors"] = len(params)
        hyper["num_elements"] = sum(int(p.numel()) for p in params)
        param_groups[str(index)] = hyper
    state_dtypes: dict[str, dict[str, int]] = {}
    steps: int | None = None
    for per_param in getattr(optimizer, "state", {}).values():
        if not isinstance(per_param, dict):
            continue
        for key, value in per_param.items():
            if hasattr(value, "dtype") and hasattr(value, "numel"):
                counts = state_dtypes.setdefault(str(key), {})
                name = dtype_name(value.dtype)
                counts[name] = counts.get(name, 0) + 1
            if key == "step":
                step = json_safe(value)
                if isinstance(step, (int, float)):
                    steps = max(steps or 0, int(step))
    return OptimizerInfo(
        class_name=qualname(optimizer),
        param_groups=param_groups,
        state_dtypes={k: dict(sorted(v.items())) for k, v in sorted(state_dtypes.items())},
        steps=steps,
    )


def _scheduler(scheduler: Any) -> SchedulerInfo:
    state_dict = getattr(scheduler, "state_dict", None)
    if not callable(state_dict):
        raise TypeError(f"expected an LR scheduler, got {type(scheduler).__name__}")
    state = {
        str(k): json_safe(v)
        for k, v in sorted(state_dict().items())
        if v is None or isinstance(v, (bool, int, float, str, list, tuple))
    }
    last_lr = None
    if callable(getattr(scheduler, "get_last_lr", None)):
        values = json_safe(scheduler.get_last_lr())
        if isinstance(values, list) and all(isinstance(v, (int, float)) for v in values):
            last_lr = [float(v) for v in values]
    return SchedulerInfo(class_name=qualname(scheduler), state=state, last_lr=last_lr)


def collect(context: CaptureContext) -> PrecisionSection:
    declared, sources, problems = declared_values(context, "precision")
    given = {name: context.inputs.get(name) for name in _OBJECTS}
    torch = loaded_torch(context)
    if not any(v is not None for v in given.values()) and not sources and torch is None:
        raise CollectorUnavailable("no model, optimizer, scaler or declared precision fields")
    section = PrecisionSection(**declared, sources=sources)
    section.unknown.update({f"declared.{k}": v for k, v in problems.items()})
    readers = {
        "model": lambda obj: _model_facts(obj, section),
        "scaler": lambda obj: setattr(section, "scaler", _scaler(obj)),
        "optimizer": lambda obj: setattr(section, "optimizer", _optimizer(obj)),
        "scheduler": lambda obj: setattr(section, "scheduler", _scheduler(obj)),
    }
    for name, obj in given.items():
        if obj is None:
            continue
        try:
            readers[name](obj)
        except Exception as exc:  # a wrong or odd object costs only its own fields
            section.unknown[name] = f"{type(exc).__name__}: {exc}"[:300]
    if torch is not None:
        section.autocast = _autocast(torch)
    else:
        section.unknown["autocast"] = "torch is not imported in this process"
    return section


COLLECTOR = Collector(
    name="precision",
    collect=collect,
    timeout_s=10.0,
    description="dtypes, autocast, GradScaler, optimizer and scheduler",
)
