"""What a checkpoint must hold to resume the same trajectory, and how to find it in one.

The list is seed document 001's resumption state: model, optimizer (with every per-parameter
buffer), scheduler, loss scaler, RNG states, the completed-update count and epoch, the data
cursor, and whether the save happened at an optimizer-update boundary. Each item has a severity
per reproduction target and the consequence of losing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from envsnap.diff.report import Category, Finding, Severity, Target
from envsnap.manifest.sections.base import Model
from envsnap.training.checkpoint.safeload import TensorInfo
from envsnap.training.checkpoint.scaling import LossScaling

SEED_001 = "seed document 001: resumption state (weights alone do not resume training)"
NVIDIA_D9M = "NVIDIA/framework-reproducibility doc/d9m/pytorch.md (state to checkpoint)"


class ItemStatus(Model):
    item: str = Field(description="Resumption item, e.g. 'optimizer'.")
    present: bool = Field(description="Whether the checkpoint holds it (completely).")
    needed: bool = Field(
        default=True,
        description="Whether this run needs it for an exact resume: a loss scaler only when "
        "the run used float16 loss scaling.",
    )
    where: str | None = Field(default=None, description="Key under which it was found.")
    detail: str = Field(description="What was found, or what is missing.")


@dataclass(frozen=True)
class ItemSpec:
    name: str
    aliases: tuple[str, ...]
    severity: Mapping[Target, Severity]
    category: Category
    missing: str
    why: str
    fix: str
    refs: tuple[str, ...] = (SEED_001,)


def _sev(bitwise: Severity, close: Severity, conclusion: Severity) -> dict[Target, Severity]:
    return {"bitwise": bitwise, "close": close, "conclusion": conclusion}


SPECS: tuple[ItemSpec, ...] = (
    ItemSpec(
        "model",
        (
            "model",
            "model_state",
            "model_state_dict",
            "state_dict",
            "module",
            "net",
            "weights",
            "pytorch_model",
        ),
        _sev("critical", "critical", "critical"),
        "semantics",
        "no model state",
        "The weights are where training resumes from; without them there is nothing to resume.",
        "Save model.state_dict().",
    ),
    ItemSpec(
        "optimizer",
        (
            "optimizer",
            "optimizer_state",
            "optimizer_state_dict",
            "optim",
            "opt",
            "optimizer_states",
        ),
        _sev("high", "high", "medium"),
        "semantics",
        "no optimizer state",
        "Weights alone do not resume training: momentum / Adam moments restart from zero, so "
        "the updates after the resume differ. In the seed document's scalar example the resumed "
        "step gives w=0.352 instead of 0.514; the run 'trains fine' on another trajectory.",
        "Save optimizer.state_dict() (every per-parameter buffer) and load it on resume.",
    ),
    ItemSpec(
        "scheduler",
        (
            "scheduler",
            "lr_scheduler",
            "scheduler_state",
            "scheduler_state_dict",
            "lr_schedulers",
            "sched",
        ),
        _sev("high", "high", "medium"),
        "semantics",
        "no scheduler state",
        "The learning-rate schedule restarts (or jumps) at the resume, so every later update uses "
        "a different learning rate.",
        "Save scheduler.state_dict() and load it on resume.",
    ),
    ItemSpec(
        "scaler",
        ("scaler", "grad_scaler", "amp_scaler", "loss_scaler", "native_amp_scaling_state"),
        _sev("high", "medium", "low"),
        "precision",
        "no loss-scaler state",
        "With fp16 loss scaling, the scale restarts at its initial value: different steps "
        "overflow and are skipped, so fewer real optimizer updates happen than batches are read "
        "and the LR schedule shifts.",
        "Save GradScaler.state_dict() and load it on resume.",
        (SEED_001, NVIDIA_D9M),
    ),
    ItemSpec(
        "rng",
        (
            "rng",
            "rng_state",
            "rng_states",
            "seeds",
            "seed_state",
            "random_state",
            "torch_rng_state",
            "cpu_rng_state",
            "rng_tracker",
        ),
        _sev("high", "high", "low"),
        "randomness",
        "no RNG states",
        "Dropout masks, augmentation and any sampling after the resume come from freshly seeded "
        "generators instead of the continued streams, so the trajectory changes at the first "
        "update after the resume.",
        "Save python/numpy/torch/CUDA RNG states (SeedManager.state()) and restore them.",
        (SEED_001, NVIDIA_D9M),
    ),
    ItemSpec(
        "update",
        (
            "update",
            "updates",
            "completed_updates",
            "global_step",
            "step",
            "iteration",
            "iter",
            "num_updates",
        ),
        _sev("high", "high", "medium"),
        "semantics",
        "no completed-update count",
        "Without the number of completed optimizer updates, the schedule position, warm-up and "
        "logging restart, and the resumed run cannot be aligned with the original.",
        "Save the number of completed optimizer updates (not batches read).",
    ),
    ItemSpec(
        "epoch",
        ("epoch", "epochs"),
        _sev("medium", "medium", "low"),
        "data",
        "no epoch",
        "The epoch decides the shuffling order of epoch-seeded samplers (set_epoch); without it "
        "the resumed epoch may reuse another epoch's order.",
        "Save the current epoch.",
    ),
    ItemSpec(
        "data_cursor",
        (
            "data_cursor",
            "data",
            "data_state",
            "sampler",
            "sampler_state",
            "dataloader",
            "data_loader",
            "consumed_samples",
            "consumed_train_samples",
            "loops",
        ),
        _sev("high", "high", "medium"),
        "data",
        "no data cursor",
        "Without the sampler state and the consumed position, the resumed run rereads samples "
        "from the start of the epoch (or skips some): it trains on different data.",
        "Save the sampler state and the number of samples actually consumed (not prefetched).",
    ),
    ItemSpec(
        "boundary",
        ("at_boundary", "micro_step", "accumulation_step", "micro_steps_done"),
        _sev("medium", "medium", "low"),
        "semantics",
        "not recorded whether it was saved at an optimizer-update boundary",
        "A save in the middle of gradient accumulation loses the partial gradients of the "
        "micro-batches already processed; without a record it cannot be ruled out.",
        "Record the micro-step at save time, and save only at update boundaries.",
    ),
)
SPEC_BY_NAME = {spec.name: spec for spec in SPECS}
MID_ACCUMULATION: dict[Target, Severity] = _sev("high", "high", "medium")


@dataclass(frozen=True)
class Opaque:
    """An item known to exist but not inspected further (e.g. from DCP metadata)."""

    detail: str


def is_tensor(value: object) -> bool:
    """A real tensor, or one known from a safetensors header."""
    return isinstance(value, TensorInfo) or (
        type(value).__module__.startswith("torch") and hasattr(value, "shape")
    )


def is_tensor_map(value: object) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(is_tensor(v) for v in value.values())


def is_optimizer_state(value: object) -> bool:
    return isinstance(value, Mapping) and "state" in value and "param_groups" in value


def _find(document: Mapping[str, Any], spec: ItemSpec) -> tuple[str, Any] | None:
    """Look the item up by its aliases at the top level, then one level down."""
    for alias in spec.aliases:
        if alias in document:
            return alias, document[alias]
    for key, value in document.items():
        if spec.name == "rng" and str(key).startswith("rng_state"):
            return str(key), value
    for key, value in document.items():
        if (
            isinstance(value, Mapping)
            and not is_tensor_map(value)
            and not is_optimizer_state(value)
        ):
            for alias in spec.aliases:
                if alias in value:
                    return f"{key}.{alias}", value[alias]
    return None


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    numel = getattr(value, "numel", None)
    if numel is not None and numel() == 1:  # a one-element tensor
        return int(value.item())  # type: ignore[attr-defined]
    return None


def _optimizer_problem(state_dict: Mapping[str, Any]) -> tuple[str, str | None]:
    """(detail, problem) for one optimizer state dict: are buffers there for every parameter?"""
    groups = state_dict.get("param_groups") or []
    state = state_dict.get("state") or {}
    ids = [pid for group in groups for pid in group.get("params", [])]
    buffers = {
        pid: {k for k, v in (state.get(pid) or {}).items() if v is not None and k != "step"}
        for pid in ids
    }
    names = set().union(*buffers.values()) if buffers else set()
    stateless = all(not group.get("momentum") for group in groups) and not any(
        "betas" in group for group in groups
    )
    if not names and stateless:
        return f"{len(ids)} parameters; this optimizer keeps no per-parameter buffers", None
    detail = f"{len(ids)} parameters, buffers {sorted(names) or 'none'}"
    lacking = [pid for pid in ids if not buffers[pid] or names - buffers[pid]]
    if not names:
        return detail, (
            f"the optimizer state holds no per-parameter buffers for any of its {len(ids)} "
            "parameters (saved before the first update, or from a fresh optimizer)"
        )
    if lacking:
        shown = ", ".join(map(str, lacking[:5])) + (" ..." if len(lacking) > 5 else "")
        return detail, (
            f"buffers {sorted(names)} are missing for {len(lacking)} of {len(ids)} parameters "
            f"({shown}): those parameters restart their momentum/moments"
        )
    return detail, None


def _check(spec: ItemSpec, value: Any) -> tuple[str, str | None]:
    """(detail, problem) for an item that was found."""
    if isinstance(value, Opaque):
        return value.detail, None
    if spec.name == "model":
        if is_tensor_map(value):
            return f"{len(value)} tensors", None
        return f"{type(value).__name__}", "the model entry holds no tensors"
    if spec.name == "optimizer":
        states = value if isinstance(value, list) else [value]
        if not states or not all(is_optimizer_state(s) for s in states):
            return type(value).__name__, "not an optimizer state_dict (no 'state'/'param_groups')"
        results = [_optimizer_problem(s) for s in states]
        problems = [p for _, p in results if p]
        return "; ".join(d for d, _ in results), ("; ".join(problems) or None)
    if spec.name in ("update", "epoch"):
        number = _as_int(value)
        if number is None:
            return repr(value)[:40], f"{spec.name} is not a whole number"
        return str(number), None
    if spec.name == "boundary":
        return _boundary(value)
    if value is None or (isinstance(value, (Mapping, list)) and not value):
        return "empty", f"the {spec.name} entry is empty"
    return type(value).__name__, None


def _boundary(value: Any) -> tuple[str, str | None]:
    if isinstance(value, bool):
        at = value
    else:
        micro = _as_int(value)
        if micro is None:
            return repr(value)[:40], "boundary record is not a bool or a micro-step count"
        at = micro == 0
    if at:
        return "saved at an optimizer-update boundary", None
    return "saved in the middle of gradient accumulation", "mid-accumulation"


def audit_items(
    document: Any, target: Target, scaling: LossScaling | None = None
) -> tuple[list[ItemStatus], list[Finding]]:
    """Statuses of every item and findings for the missing or incomplete ones (unranked).

    `scaling` says whether the run used float16 loss scaling (see `scaling.loss_scaling`);
    the scaler is required unless it says the run did not.
    """
    if is_tensor_map(document):
        # A bare state_dict: weights only.
        document = {"model": document}
    if not isinstance(document, Mapping):
        document = {}
    statuses: list[ItemStatus] = []
    findings: list[Finding] = []
    for spec in SPECS:
        hit = _find(document, spec)
        # A run without loss scaling needs no scaler: absent, or a disabled one's empty state.
        unused = spec.name == "scaler" and scaling is not None and scaling.used is False
        if unused and scaling is not None and (hit is None or not hit[1]):
            statuses.append(_not_needed(spec, hit, scaling.reason))
            continue
        if hit is None:
            detail = spec.missing
            if spec.name == "scaler" and scaling is not None:
                detail += f" ({scaling.reason})"
            statuses.append(ItemStatus(item=spec.name, present=False, detail=detail))
            findings.append(_finding(spec, target, "missing", spec.missing, _why(spec, scaling)))
            continue
        where, value = hit
        detail, problem = _check(spec, value)
        statuses.append(
            ItemStatus(item=spec.name, present=problem is None, where=where, detail=detail)
        )
        if problem == "mid-accumulation":
            findings.append(
                _finding(
                    spec,
                    target,
                    "mid-accumulation",
                    "saved in the middle of gradient accumulation",
                    "The partial gradients of the micro-batches already processed are not in "
                    "the checkpoint: the first update after the resume uses only part of its "
                    "micro-batches.",
                    severity=MID_ACCUMULATION[target],
                )
            )
        elif problem is not None:
            findings.append(_finding(spec, target, "incomplete", problem, spec.why))
    return statuses, findings


def _not_needed(spec: ItemSpec, hit: tuple[str, Any] | None, reason: str) -> ItemStatus:
    """The status of a scaler the run did not use."""
    return ItemStatus(
        item=spec.name,
        present=hit is not None,
        needed=False,
        where=hit[0] if hit else None,
        detail=f"not needed: {reason}",
    )


def _why(spec: ItemSpec, scaling: LossScaling | None) -> str:
    if spec.name != "scaler":
        return spec.why
    if scaling is not None and scaling.used:
        return f"{spec.why} The run used loss scaling: {scaling.reason}."
    return f"{spec.why} Irrelevant if the run used no GradScaler."


def _finding(
    spec: ItemSpec,
    target: Target,
    kind: str,
    title: str,
    why: str,
    *,
    severity: Severity | None = None,
) -> Finding:
    return Finding(
        rank=0,
        rule=f"ckpt.{spec.name}.{kind}",
        severity=severity or spec.severity[target],
        category=spec.category,
        path=spec.name,
        title=title,
        why=why,
        fix=spec.fix,
        refs=list(spec.refs),
    )
