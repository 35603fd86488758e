"""Align two step traces by update count, find the first divergence and say what it means.

Fields are compared in causal order (inputs -> RNG -> scaler/optimizer/scheduler state -> loss
-> parameters): the earliest field that differs at the first divergent update is the likeliest
cause, and everything after it is a consequence. Divergence at the first update after a resume
points to state or inputs that were not restored; divergence later points to numerics.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, JsonValue

from envsnap.manifest.sections.base import Model
from envsnap.training.trace.records import Trace, TraceError, UpdateLine

Mode = Literal["bitwise", "close"]
Status = Literal["equal", "close", "differs"]

# (field, causal group), in causal order.
FIELDS: tuple[tuple[str, str], ...] = (
    ("micro_steps", "inputs"),
    ("samples", "inputs"),
    ("rng.python", "rng"),
    ("rng.numpy", "rng"),
    ("rng.torch", "rng"),
    ("rng.cuda", "rng"),
    ("scale", "scaler"),
    ("skipped", "scaler"),
    ("optim", "optimizer"),
    ("sched", "scheduler"),
    ("lr", "scheduler"),
    ("loss", "loss"),
    ("grad_norm", "loss"),
    ("params", "params"),
)
NUMERIC = frozenset({"scale", "lr", "loss", "grad_norm"})
# Digests of floating-point state cannot be judged "close": in close mode they are reported but
# do not make the traces diverge on their own.
FLOAT_STATE = frozenset({"optim", "params"})


class FieldDiff(Model):
    field: str = Field(description="Trace field, e.g. 'samples' or 'rng.torch'.")
    group: str = Field(description="Causal group: inputs, rng, scaler, optimizer, ...")
    a: JsonValue = Field(description="Value in trace A.")
    b: JsonValue = Field(description="Value in trace B.")
    within_tolerance: bool = Field(description="Differs bitwise but within --rtol/--atol.")


class Divergence(Model):
    update: int = Field(description="First update whose records differ.")
    after_resume: bool = Field(description="It is the first update after a resume in A or B.")
    previous_update: int | None = Field(description="Last update where both traces agreed.")
    fields: list[FieldDiff] = Field(description="Differing fields, in causal order.")


class Diagnosis(Model):
    code: str = Field(description="Stable id of the diagnosis.")
    cause: str = Field(description="What the divergence means, in plain words.")
    fix: str = Field(description="What to do about it.")


class TraceDiff(Model):
    a: str = Field(description="Path of trace A.")
    b: str = Field(description="Path of trace B.")
    mode: Mode = Field(description="bitwise, or close (numbers within rtol/atol).")
    rtol: float = Field(description="Relative tolerance used in close mode.")
    atol: float = Field(description="Absolute tolerance used in close mode.")
    updates: int = Field(description="Number of updates compared.")
    first_update: int = Field(description="First update compared.")
    last_update: int = Field(description="Last update compared.")
    resumes_a: list[int] = Field(description="Updates at which A resumed from a checkpoint.")
    resumes_b: list[int] = Field(description="Updates at which B resumed from a checkpoint.")
    agree: bool = Field(description="The traces agree under the chosen mode.")
    first_difference: Divergence | None = Field(description="First bitwise difference.")
    divergence_update: int | None = Field(description="First update diverging under the mode.")
    max_loss_rel_diff: float | None = Field(description="Largest relative loss difference.")
    diagnosis: Diagnosis | None = Field(description="Likeliest cause of the first difference.")
    lost_at_resume: list[Diagnosis] = Field(
        default_factory=list,
        description="When the first difference is the first update after a resume: every "
        "piece of state the trace shows was not restored, in causal order (the first is the "
        "diagnosis). A difference another listed loss explains is not listed again.",
    )
    not_compared: list[str] = Field(description="Fields recorded on one side only.")


def _as_float(value: float | str | None) -> float:
    return float(value) if value is not None else math.nan


def _number_status(
    a: float | str | None, b: float | str | None, rtol: float, atol: float
) -> Status:
    fa, fb = _as_float(a), _as_float(b)
    if math.isnan(fa) and math.isnan(fb):
        return "equal"
    if fa.hex() == fb.hex():
        return "equal"
    if math.isfinite(fa) and math.isfinite(fb) and abs(fa - fb) <= atol + rtol * abs(fb):
        return "close"
    return "differs"


def _status(name: str, a: JsonValue, b: JsonValue, rtol: float, atol: float) -> Status:
    if name not in NUMERIC:
        return "equal" if a == b else "differs"
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "differs"
        parts = [_number_status(x, y, rtol, atol) for x, y in zip(a, b, strict=True)]  # type: ignore[arg-type]
        return "differs" if "differs" in parts else ("close" if "close" in parts else "equal")
    if isinstance(a, list) or isinstance(b, list):
        return "differs"
    return _number_status(a, b, rtol, atol)  # type: ignore[arg-type]


def _getter(name: str, skipped: dict[int, int]) -> Callable[[UpdateLine], JsonValue]:
    if name.startswith("rng."):
        key = name.split(".", 1)[1]
        return lambda line: (line.rng or {}).get(key)
    if name == "skipped":
        return lambda line: skipped[line.update]
    return lambda line: getattr(line, name)


def _skipped_since(trace: Trace, updates: list[int]) -> dict[int, int]:
    """Skipped updates counted from the first compared update (a trace may start later)."""
    base = trace.skipped_before[updates[0]] - trace.updates[updates[0]].skipped
    return {u: trace.skipped_before[u] - base for u in updates}


def _check_alignment(a: Trace, b: Trace) -> list[int]:
    only_a = sorted(set(a.updates) - set(b.updates))
    only_b = sorted(set(b.updates) - set(a.updates))
    if only_a or only_b:
        first = min(only_a + only_b)
        side = "A" if first in only_a else "B"

        def span(t: Trace) -> str:
            keys = sorted(t.updates)
            return f"{len(keys)} updates ({keys[0]}-{keys[-1]})"

        raise TraceError(
            f"update counts do not match: A has {span(a)}, B has {span(b)}; update {first} is "
            f"only in {side}. Record both runs over the same updates with the same every="
        )
    return sorted(a.updates)


def compare_traces(
    a: Trace, b: Trace, *, mode: Mode = "bitwise", rtol: float = 1e-5, atol: float = 1e-8
) -> TraceDiff:
    """Compare two parsed traces. Raises `TraceError` when their update counts do not align."""
    if rtol < 0 or atol < 0:
        raise TraceError("--rtol and --atol must be non-negative")
    updates = _check_alignment(a, b)
    skipped_a, skipped_b = _skipped_since(a, updates), _skipped_since(b, updates)
    resumes = set(a.resumes) | set(b.resumes)
    not_compared: set[str] = set()
    first: Divergence | None = None
    divergence_update: int | None = None
    previous: int | None = None
    max_rel: float | None = None
    for update in updates:
        diffs, breach, loss_rel = _compare_update(
            (a.updates[update], skipped_a),
            (b.updates[update], skipped_b),
            _Tolerance(mode, rtol, atol),
            not_compared,
        )
        if loss_rel is not None:
            max_rel = max(max_rel or 0.0, loss_rel)
        if diffs and first is None:
            first = Divergence(
                update=update,
                after_resume=update in resumes,
                previous_update=previous,
                fields=diffs,
            )
        if breach and divergence_update is None:
            divergence_update = update
        if first is None:
            previous = update
    return TraceDiff(
        a=a.path,
        b=b.path,
        mode=mode,
        rtol=rtol,
        atol=atol,
        updates=len(updates),
        first_update=updates[0],
        last_update=updates[-1],
        resumes_a=a.resumes,
        resumes_b=b.resumes,
        agree=divergence_update is None,
        first_difference=first,
        divergence_update=divergence_update,
        max_loss_rel_diff=max_rel,
        diagnosis=diagnose(first, max_rel, rtol) if first else None,
        lost_at_resume=lost_at_resume(first) if first and first.after_resume else [],
        not_compared=sorted(not_compared),
    )


@dataclass(frozen=True)
class _Tolerance:
    mode: Mode
    rtol: float
    atol: float


def _compare_update(
    side_a: tuple[UpdateLine, dict[int, int]],
    side_b: tuple[UpdateLine, dict[int, int]],
    tolerance: _Tolerance,
    not_compared: set[str],
) -> tuple[list[FieldDiff], bool, float | None]:
    """The fields that differ at one update (each side: its line and skipped-update counts),
    whether any of them breaks the mode, and the loss's relative difference.

    A field recorded on one side only is added to `not_compared`.
    """
    diffs: list[FieldDiff] = []
    breach = False
    loss_rel: float | None = None
    for name, group in FIELDS:
        value_a = _getter(name, side_a[1])(side_a[0])
        value_b = _getter(name, side_b[1])(side_b[0])
        if value_a is None or value_b is None:
            if (value_a is None) != (value_b is None):
                not_compared.add(name)
            continue
        status = _status(name, value_a, value_b, tolerance.rtol, tolerance.atol)
        if name == "loss":
            loss_rel = _relative(value_a, value_b)  # type: ignore[arg-type]
        if status == "equal":
            continue
        diffs.append(
            FieldDiff(
                field=name, group=group, a=value_a, b=value_b, within_tolerance=status == "close"
            )
        )
        if tolerance.mode == "bitwise" or (status == "differs" and name not in FLOAT_STATE):
            breach = True
    return diffs, breach, loss_rel


def _relative(a: float | str, b: float | str) -> float:
    fa, fb = _as_float(a), _as_float(b)
    if not (math.isfinite(fa) and math.isfinite(fb)):
        return 0.0 if fa.hex() == fb.hex() or (math.isnan(fa) and math.isnan(fb)) else math.inf
    return abs(fa - fb) / max(abs(fa), abs(fb), 1e-300) if fa != fb else 0.0


@dataclass(frozen=True)
class _Facts:
    """What the cause checks read about the first difference."""

    by_name: dict[str, FieldDiff]
    groups: set[str]
    where: str
    resumed: bool
    max_rel: float | None
    rtol: float


def diagnose(first: Divergence, max_rel: float | None, rtol: float) -> Diagnosis:
    """Name the likeliest cause of the first difference (see the module docstring)."""
    u, resumed = first.update, first.after_resume
    facts = _Facts(
        by_name={d.field: d for d in first.fields},
        groups={d.group for d in first.fields},
        where=f"update {u}, the first update after a resume" if resumed else f"update {u}",
        resumed=resumed,
        max_rel=max_rel,
        rtol=rtol,
    )
    # Causal order (module docstring): the first check that applies names the cause, and the
    # differences after it are its consequences.
    for check in _CAUSES:
        found = check(facts, first)
        if found is not None:
            return found
    return _numerics(facts.where, max_rel, rtol)


def _accumulation(f: _Facts, first: Divergence) -> Diagnosis | None:
    d = f.by_name.get("micro_steps")
    if d is None:
        return None
    return Diagnosis(
        code="accumulation-boundary",
        cause=(
            f"At {f.where}, A accumulated {d.a} micro-batches and B {d.b}: the checkpoint was "
            "saved in the middle of gradient accumulation, so the partial gradients of the "
            "micro-batches before the save were lost"
            if f.resumed
            else f"At {f.where}, A accumulated {d.a} micro-batches and B {d.b}: the "
            "accumulation steps or the epoch tail handling differ"
        ),
        fix="Save only at optimizer-update boundaries (after optimizer.step() and zero_grad()).",
    )


def _data_cursor(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "samples" not in f.by_name:
        return None
    return Diagnosis(
        code="data-cursor",
        cause=(
            f"At {f.where} the two runs trained on different samples: the data cursor or "
            "sampler state was not restored"
            if f.resumed
            else f"From {f.where} the two runs trained on different samples: data order, "
            "sampler seed, shuffling or the dataset itself differ"
        ),
        fix="Checkpoint and restore the sampler state and the consumed position (count only "
        "samples actually used, not prefetched ones); compare the data manifests.",
    )


def _rng(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "rng" not in f.groups:
        return None
    names = ", ".join(d.field.split(".", 1)[1] for d in first.fields if d.group == "rng")
    return Diagnosis(
        code="rng",
        cause=(
            f"At {f.where} inputs agree but the RNG states differ ({names}): the RNG state was "
            "not restored"
            if f.resumed
            else f"At {f.where} inputs agree but the RNG states differ ({names}): different "
            "seeds, or a different number of random draws"
        ),
        fix="Save every RNG state (python, numpy, torch, CUDA, data-loader generators) with "
        "the checkpoint and restore it, e.g. SeedManager.state()/restore().",
    )


def _scaler(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "scaler" not in f.groups:
        return None
    skipped = f.by_name.get("skipped")
    counts = f" (skipped updates: A {skipped.a}, B {skipped.b})" if skipped else ""
    return Diagnosis(
        code="scaler",
        cause=(
            f"At {f.where} the loss-scaler state differs{counts}: its state was lost, so the "
            "runs skip different updates, perform a different number of real optimizer "
            "updates and the LR schedule shifts"
        ),
        fix="Checkpoint and restore the GradScaler state (scale and growth tracker).",
    )


def _loss(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "loss" not in f.by_name:
        return None
    if not f.resumed:
        return _numerics(f.where, f.max_rel, f.rtol)
    return Diagnosis(
        code="model-state",
        cause=f"At {f.where} inputs, RNG and optimizer state agree but the loss differs: "
        "the weights entering the update differ, so the model state was not restored "
        "(or was restored from another checkpoint)",
        fix="Restore the model state_dict from the same checkpoint as the other state.",
    )


def _optimizer(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "optim" not in f.by_name:
        return None
    return Diagnosis(
        code="optimizer-state",
        cause=(
            f"At {f.where} inputs and parameters were equal (same loss) but the optimizer "
            "state differs: the optimizer state was not restored (momentum / Adam moments "
            "restarted), so the run follows another trajectory"
            if f.resumed
            else f"At {f.where} inputs and parameters were equal but the optimizer state "
            "differs: different optimizer settings or implementation (foreach/fused)"
        ),
        fix="Save and load optimizer.state_dict() with every per-parameter buffer.",
    )


def _scheduler(f: _Facts, first: Divergence) -> Diagnosis | None:
    if "scheduler" not in f.groups:
        return None
    lr = f.by_name.get("lr")
    values = f" (lr A {lr.a}, B {lr.b})" if lr else ""
    return Diagnosis(
        code="scheduler-state",
        cause=f"At {f.where} the learning-rate schedule differs{values}: the scheduler state "
        "was not restored" + ("" if f.resumed else " or its settings differ"),
        fix="Save and load scheduler.state_dict() along with the update count.",
    )


_CAUSES: tuple[Callable[[_Facts, Divergence], Diagnosis | None], ...] = (
    _accumulation,
    _data_cursor,
    _rng,
    _scaler,
    _loss,
    _optimizer,
    _scheduler,
)


# For each loss, the losses upstream of it whose consequences include its evidence: a scaler
# that skips other steps, optimizer moments or a different loss all follow from other inputs,
# RNG draws or weights, so they count only when nothing upstream of them is lost too. The
# learning rate depends on the scheduler's own state and the update count alone.
_EXPLAINED_BY: dict[str, frozenset[str]] = {
    "accumulation-boundary": frozenset(),
    "data-cursor": frozenset({"accumulation-boundary"}),
    "rng": frozenset({"accumulation-boundary"}),
    "model-state": frozenset({"accumulation-boundary", "data-cursor", "rng"}),
    "scaler": frozenset({"accumulation-boundary", "data-cursor", "rng", "model-state"}),
    "optimizer-state": frozenset(
        {"accumulation-boundary", "data-cursor", "rng", "model-state", "scaler"}
    ),
    "scheduler-state": frozenset({"accumulation-boundary"}),
}


def lost_at_resume(first: Divergence) -> list[Diagnosis]:
    """Every piece of state the first update after a resume shows was lost, causal order."""
    facts = _Facts(
        by_name={d.field: d for d in first.fields},
        groups={d.group for d in first.fields},
        where=f"update {first.update}, the first update after a resume",
        resumed=True,
        max_rel=None,
        rtol=0.0,
    )
    lost: list[Diagnosis] = []
    for check in _CAUSES:
        found = check(facts, first)
        if found is None or found.code not in _EXPLAINED_BY:
            continue
        if not _EXPLAINED_BY[found.code] & {d.code for d in lost}:
            lost.append(found)
    return lost


def _numerics(where: str, max_rel: float | None, rtol: float) -> Diagnosis:
    size = f"{max_rel:.3g}" if max_rel is not None else "unknown"
    within = max_rel is not None and max_rel <= rtol
    return Diagnosis(
        code="numerics",
        cause=f"Inputs, RNG and optimizer state agreed up to {where}, then the values drifted "
        f"(largest relative loss difference {size}, "
        f"{'within' if within else 'beyond'} rtol {rtol:g}): numerical nondeterminism "
        "or different kernels",
        fix="Check determinism settings and kernels (cudnn.benchmark, "
        "use_deterministic_algorithms, thread counts) and run `envsnap diff` on the two "
        "runs' manifests.",
    )
