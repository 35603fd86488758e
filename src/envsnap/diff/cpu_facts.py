"""Derived findings about fp32 math on the CPU: the precision oneDNN runs it in, and the kernels
the CPU's instruction set dispatches to.

Both read `manifest.effective.op_precision`, the one fact the audit, `show` and bisect read too:
a CPU bf16 setting is a precision finding wherever the CPU has bf16 kernels, not a GPU-only one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, get
from envsnap.diff.device import gpu_in_use
from envsnap.diff.report import SEVERITIES, Severity
from envsnap.diff.sides import Side, where
from envsnap.manifest.effective import (
    CPU_OPS,
    MATMUL_PRECISION_PATH,
    OpPrecision,
    cpu_chain,
    fp32_precision_path,
    op_precision,
)

Doc = dict[str, Any]
PRECISION_RULE = "precision.cpu-fp32"
KERNELS_RULE = "hw.cpu-kernels"
_NOUNS = {"matmul": "matmuls", "conv": "convolutions", "rnn": "RNNs"}
_REDUCED = ("bf16", "tf32")
_NOT_ACTING: tuple[Severity, Severity, Severity] = ("low", "low", "low")
# Where the model's math ran on CUDA on both sides, a CPU setting reaches CPU-side ops only.
_CPU_SIDE_ONLY: tuple[Severity, Severity, Severity] = ("medium", "low", "low")


def effective_path(op: str) -> str:
    """The path a CPU precision finding is keyed on: a derived fact, not a recorded field."""
    return f"torch.effective.cpu.{op}_fp32"


@dataclass(frozen=True)
class _Pair:
    op: str
    a: OpPrecision
    b: OpPrecision
    settings: tuple[tuple[str, Any, Any], ...]  # the deciding settings that differ


def _settings(a: Doc, b: Doc, op: str) -> tuple[tuple[str, Any, Any], ...]:
    """(path, A's value, B's value) of every setting that can decide `op` and differs."""
    fp32_a, fp32_b = get(a, "torch.fp32_precision"), get(b, "torch.fp32_precision")
    found = [(fp32_precision_path(k), _leaf(fp32_a, k), _leaf(fp32_b, k)) for k in cpu_chain(op)]
    if op == "matmul":
        legacy = "torch.matmul.float32_matmul_precision"
        found.append((MATMUL_PRECISION_PATH, get(a, legacy), get(b, legacy)))
    return tuple((path, va, vb) for path, va, vb in found if va != vb)


def _leaf(fp32: Any, key: str) -> Any:
    return fp32.get(key) if isinstance(fp32, dict) else None


def _lowered(severity: tuple[Severity, Severity, Severity]) -> tuple[Severity, Severity, Severity]:
    """Counted for bitwise, one step lower for close and conclusion (not shown to act)."""
    close, conclusion = (SEVERITIES[min(SEVERITIES.index(s) + 1, 3)] for s in severity[1:])
    return severity[0], close, conclusion


def _inferred(pair: _Pair) -> str | None:
    notes = [
        f"{side.upper()}: {p.inferred} ({p.reason})"
        for side, p in (("a", pair.a), ("b", pair.b))
        if p.inferred
    ]
    return "; ".join(notes) or None


def _title(pair: _Pair) -> str:
    noun = _NOUNS.get(pair.op, pair.op)
    first: Side = "b" if pair.b.reduced else "a"
    lead, other = (pair.b, pair.a) if first == "b" else (pair.a, pair.b)
    rest: Side = "a" if first == "b" else "b"
    return (
        f"fp32 {noun} run as {lead.label()} {where(first, 'in')}, "
        f"as {other.precision or 'unknown'} {where(rest, 'in')}"
    )


def _same_effect_title(pair: _Pair) -> str:
    noun = _NOUNS.get(pair.op, pair.op)
    asked = next((p for p in (pair.a, pair.b) if p.requested in _REDUCED), None)
    why = f" ({asked.reason})" if asked is not None else ""
    return (
        f"CPU fp32 {pair.op} setting differs, but fp32 {noun} run as {pair.a.label()} on "
        f"both sides{why}"
    )


def _precision_hit(pair: _Pair, gpu_jobs: bool) -> Hit:
    path = effective_path(pair.op)
    inferred = _inferred(pair)
    if pair.a.precision == pair.b.precision:
        # The setting changed, the math did not: the CPU has no kernels for the asked mode.
        return Hit(
            PRECISION_RULE,
            path,
            pair.a.precision,
            pair.b.precision,
            title=_same_effect_title(pair),
            severity=_NOT_ACTING,
            active=False,
            extra=pair.settings,
            inferred=inferred,
        )
    title = _title(pair)
    severity: tuple[Severity, Severity, Severity] | None = None
    active: bool | None = None
    if gpu_jobs:
        title += "; the model's math ran on CUDA, so only CPU-side fp32 ops"
        severity, active = _CPU_SIDE_ONLY, False
    elif None in (pair.a.precision, pair.b.precision) or inferred:
        severity, active = _lowered(RULES_BY_ID[PRECISION_RULE].severity), False
    return Hit(
        PRECISION_RULE,
        path,
        pair.a.precision,
        pair.b.precision,
        title=title,
        severity=severity,
        active=active,
        extra=pair.settings,
        inferred=inferred,
    )


def cpu_precision(a: Doc, b: Doc) -> Iterator[Hit]:
    """fp32 math on the CPU runs in another precision (bf16 or tf32 through oneDNN on one side),
    or a CPU precision setting differs without changing it (no kernels for the asked mode)."""
    if not (isinstance(a.get("torch"), dict) and isinstance(b.get("torch"), dict)):
        return
    gpu_jobs = gpu_in_use(a) is True and gpu_in_use(b) is True
    for op in CPU_OPS:
        pair = _Pair(
            op, op_precision(a, "cpu", op), op_precision(b, "cpu", op), _settings(a, b, op)
        )
        if pair.a.precision == pair.b.precision and not pair.settings:
            continue
        if pair.a.precision == pair.b.precision is None:
            continue  # neither side's precision is known: the settings' own changes stand
        yield _precision_hit(pair, gpu_jobs)


def _cpu_features(doc: Doc) -> tuple[str, ...] | None:
    features = get(doc, "torch.cpu.features")
    return tuple(features) if isinstance(features, list) else None


def cpu_kernels(a: Doc, b: Doc) -> Iterator[Hit]:
    """On a job whose math ran on the CPU on both sides, another ATen CPU capability (AVX2 vs
    AVX512) or other reduced-precision units (AMX) dispatch other kernels: another summation
    order for the model's own fp32 math, not a GPU-only or bookkeeping difference."""
    if gpu_in_use(a) is not False or gpu_in_use(b) is not False:
        return
    cap_a, cap_b = get(a, "torch.cpu_capability"), get(b, "torch.cpu_capability")
    feat_a, feat_b = _cpu_features(a), _cpu_features(b)
    if isinstance(cap_a, str) and isinstance(cap_b, str) and cap_a != cap_b:
        yield Hit(
            KERNELS_RULE,
            "torch.cpu_capability",
            cap_a,
            cap_b,
            title=f"CPU kernels differ: ATen dispatches {cap_a} kernels {where('a', 'in')} and "
            f"{cap_b} {where('b', 'in')}; the job's math ran on the CPU, so fp32 reductions sum "
            "in another order",
            extra=(("torch.cpu.features", feat_a, feat_b),) if feat_a != feat_b else (),
        )
    elif feat_a is not None and feat_b is not None and feat_a != feat_b:
        shown_a, shown_b = ", ".join(feat_a) or "none", ", ".join(feat_b) or "none"
        yield Hit(
            KERNELS_RULE,
            "torch.cpu.features",
            list(feat_a),
            list(feat_b),
            title=f"CPU kernels differ: oneDNN dispatches by reduced-precision units ({shown_a} "
            f"{where('a', 'in')}, {shown_b} {where('b', 'in')}); the job's math ran on the CPU",
        )


CPU_DERIVED = (cpu_precision, cpu_kernels)
