"""What the numerics probe measured, applied to the hits: causes it confirms, causes it rules out.

Each mechanism acts through some op families on some device kind (`ACTS_THROUGH`): the thread
count through the multi-threaded reduction on the CPU, TF32 through fp32 matmul and conv on a
GPU. Where both manifests hold a probe of the same suite for a device:

- a family whose digests differ is measured evidence that the numerics differ there: every hit
  whose mechanism acts through it is confirmed (active, ranked before its equals, the differing
  digests in its evidence), and the probe's own hits for that family fold into those causes;
- a mechanism that acts only through the probe's op families (`ONLY_THROUGH`: a thread count, a
  TF32 or fp32-precision setting) and all of whose families were measured identical is ruled
  out: one step lower, and titled "probe: identical fp32 matmul on cpu". A broad cause (another
  torch, another GPU) also acts through ops the probe does not run, so identical probes never
  rule it out. A family is measured only where both probes ran one of its ops: an attention
  backend the device lacks ("unsupported" on both sides) measures nothing;
- the SDPA backend *selection* (`torch.sdpa.*`) is not probed at all: the probe pins each
  backend in turn, so its attention digests show what each backend computes, not which one
  the job's dispatch picked;
- a family that differs with no recorded cause stays a finding of its own (`probe.numerics`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from envsnap.diff.changes import Change
from envsnap.diff.derived import Hit, get
from envsnap.diff.report import SEVERITIES, Severity

Doc = dict[str, Any]
RULE = "probe.numerics"

FAMILY_NOUNS: dict[str, str] = {
    "matmul_fp32": "fp32 matmul",
    "matmul_bf16": "bf16 matmul",
    "matmul_fp16": "fp16 matmul",
    "conv2d_fp32": "fp32 conv2d",
    "reduction": "sum/mean reduction",
    "softmax": "softmax",
    "layer_norm": "layer norm",
    "sdpa_math": "attention (math)",
    "sdpa_flash": "attention (flash)",
    "sdpa_efficient": "attention (mem-efficient)",
    "sdpa_cudnn": "attention (cuDNN)",
    "atomics": "atomic index/scatter adds",
    "rng": "seeded random draws",
    "threads": "multi-threaded reduction",
}
_SDPA = frozenset({"sdpa_math", "sdpa_flash", "sdpa_efficient", "sdpa_cudnn"})
_MATMULS = frozenset({"matmul_fp32", "matmul_bf16", "matmul_fp16"})
_MATH = frozenset(
    {*_MATMULS, *_SDPA, "conv2d_fp32", "reduction", "softmax", "layer_norm", "threads"}
)
_ALL = frozenset({*_MATH, "atomics", "rng"})
_TF32 = frozenset({"matmul_fp32", "conv2d_fp32"})

# Rule id -> (device kind, the op families its mechanism acts through). A rule not listed acts
# on what the probe does not compute (data, the model's dtype, the optimizer): never ruled out.
ACTS_THROUGH: dict[str, tuple[str | None, frozenset[str]]] = {
    "env.threads": ("cpu", frozenset({"threads"})),
    "placement.threads": ("cpu", frozenset({"threads"})),
    "placement.affinity": ("cpu", frozenset({"threads"})),
    "precision.cpu-fp32": ("cpu", _TF32),
    "hw.cpu-kernels": ("cpu", _MATH),
    "hw.cpu-isa": ("cpu", _MATH),
    "hw.cpu-arch": ("cpu", _MATH),
    "precision.tf32-matmul": ("cuda", frozenset({"matmul_fp32"})),
    "precision.tf32-override": ("cuda", frozenset({"matmul_fp32"})),
    "precision.tf32-conv": ("cuda", frozenset({"conv2d_fp32"})),
    "precision.tf32-effective": ("cuda", _TF32),
    "precision.tf32-arch": ("cuda", _TF32),
    "precision.tf32-library": ("cuda", _TF32),
    "precision.tf32-available": ("cuda", _TF32),
    "flip.torch-1.12-tf32": ("cuda", frozenset({"matmul_fp32"})),
    "flip.torch-2.9-fp32-precision": ("cuda", _TF32),
    "precision.reduced-reduction": ("cuda", frozenset({"matmul_bf16", "matmul_fp16"})),
    "flip.torch-2.5-sdpa": ("cuda", _SDPA),
    "algo.cudnn-benchmark": ("cuda", frozenset({"conv2d_fp32"})),
    "algo.cudnn-api": ("cuda", frozenset({"conv2d_fp32", "sdpa_cudnn"})),
    "stack.cudnn": ("cuda", frozenset({"conv2d_fp32", "sdpa_cudnn"})),
    "algo.cublaslt": ("cuda", _MATMULS),
    "stack.cublas": ("cuda", _MATMULS),
    "algo.deterministic-algorithms": ("cuda", frozenset({"atomics"})),
    "randomness.cuda-rng-sm-count": ("cuda", frozenset({"rng"})),
    "hw.gpu": ("cuda", _ALL),
    "hw.gpu-kernels": ("cuda", _ALL),
    "placement.allocation": ("cuda", _ALL),
    "stack.cuda-build": ("cuda", _ALL),
    "stack.cuda-toolkit": ("cuda", _ALL),
    "stack.cuda-library": ("cuda", _ALL),
    "stack.torch": (None, _ALL),
}


# The mechanisms the probe's families cover whole: identical digests rule them out.
ONLY_THROUGH = frozenset(
    {
        "env.threads",
        "placement.threads",
        "placement.affinity",
        "precision.cpu-fp32",
        "precision.tf32-matmul",
        "precision.tf32-override",
        "precision.tf32-conv",
        "precision.tf32-effective",
        "precision.tf32-arch",
        "precision.tf32-library",
        "precision.tf32-available",
        "flip.torch-1.12-tf32",
        "flip.torch-2.9-fp32-precision",
        "precision.reduced-reduction",
        "randomness.cuda-rng-sm-count",
    }
)


# The thread rules' paths the probe measures whole: torch's own pool sizes. A thread variable
# (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS) or the cores and affinity also size
# the BLAS pools of numpy and scipy, which the probe does not run: OpenBLAS takes
# OPENBLAS_NUM_THREADS before GOTO_NUM_THREADS before OMP_NUM_THREADS (only the last in an
# OpenMP build), else a thread per core up to its build's limit (OpenBLAS README, "Setting the
# number of threads using environment variables"). Identical torch reductions never rule those
# out.
_THREAD_RULES = frozenset({"env.threads", "placement.threads", "placement.affinity"})
_TORCH_POOLS = frozenset({"torch.num_threads", "torch.num_interop_threads"})


def _probed_whole(hit: Hit) -> bool:
    """Whether identical probes can rule the hit's mechanism out (see ONLY_THROUGH)."""
    if hit.rule in _THREAD_RULES:
        return hit.path in _TORCH_POOLS
    return hit.rule in ONLY_THROUGH


@dataclass(frozen=True)
class Measured:
    """One op family on one device, compared across the two probes."""

    device: str
    family: str
    differs: bool
    evidence: tuple[tuple[str, Any, Any], ...]  # the differing ops' digests (or statuses)

    @property
    def kind(self) -> str:
        return self.device.split(":", 1)[0]

    def phrase(self) -> str:
        return f"{FAMILY_NOUNS.get(self.family, self.family)} on {self.device}"


def _devices(doc: Doc) -> dict[str, Any]:
    devices = get(doc, "probe.devices")
    return devices if isinstance(devices, dict) else {}


def _op_evidence(device: str, name: str, op_a: Any, op_b: Any) -> tuple[str, Any, Any] | None:
    """(path, a, b) when the op's result differs between the probes, else None."""
    base = f"probe.devices.{device}.ops.{name}"
    status_a, status_b = op_a.get("status"), op_b.get("status")
    if status_a != status_b:
        return f"{base}.status", status_a, status_b
    if status_a == "ok" and op_a.get("digest") != op_b.get("digest"):
        return f"{base}.digest", op_a.get("digest"), op_b.get("digest")
    return None


def compare_probes(a: Doc, b: Doc) -> list[Measured]:
    """Every op family both probes ran on a device both hold, same suite only."""
    suite = get(a, "probe.suite")
    if not suite or suite != get(b, "probe.suite"):
        return []
    devices_a, devices_b = _devices(a), _devices(b)
    out: list[Measured] = []
    for device in sorted(set(devices_a) & set(devices_b)):
        run_a, run_b = devices_a[device], devices_b[device]
        if not (isinstance(run_a, dict) and isinstance(run_b, dict)):
            continue
        if run_a.get("status") != "ok" or run_b.get("status") != "ok":
            continue
        ops_a, ops_b = run_a.get("ops") or {}, run_b.get("ops") or {}
        by_family: dict[str, list[tuple[str, Any, Any]]] = {}
        for name in sorted(set(ops_a) & set(ops_b)):
            op_a, op_b = ops_a[name], ops_b[name]
            if not (isinstance(op_a, dict) and isinstance(op_b, dict)):
                continue
            if op_a.get("status") == op_b.get("status") != "ok":
                continue  # neither ran it (a backend this device lacks): nothing measured
            family = str(op_a.get("family") or name)
            found = by_family.setdefault(family, [])
            difference = _op_evidence(device, name, op_a, op_b)
            if difference is not None:
                found.append(difference)
        for family, differences in sorted(by_family.items()):
            out.append(Measured(device, family, bool(differences), tuple(differences)))
    return out


def _relevant(rule: str, measured: Iterable[Measured]) -> list[Measured]:
    kind, families = ACTS_THROUGH[rule]
    return [m for m in measured if m.family in families and (kind is None or m.kind == kind)]


def _lowered(hit: Hit, rule_severity: tuple[Severity, Severity, Severity]) -> Hit:
    severity = hit.severity or rule_severity
    down = tuple(SEVERITIES[min(SEVERITIES.index(s) + 1, len(SEVERITIES) - 1)] for s in severity)
    return replace(hit, severity=(down[0], down[1], down[2]))


def apply_probe(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """Confirm, rule out or leave each hit by what the probes measured, and add a
    `probe.numerics` hit for each family that differs with no cause (see the module)."""
    from envsnap.diff.catalog import RULES_BY_ID

    measured = compare_probes(a, b)
    if not measured:
        return hits
    explained: set[tuple[str, str]] = set()
    out: list[Hit] = []
    for hit in [*hits, *_family_hits(measured)]:
        if hit.rule not in ACTS_THROUGH or hit.basis in ("shared", "unknown"):
            out.append(hit)
            continue
        relevant = _relevant(hit.rule, measured)
        differing = [m for m in relevant if m.differs]
        if differing:
            explained.update((m.device, m.family) for m in differing)
            out.append(
                replace(
                    hit,
                    active=True,
                    measured=1,
                    measured_note="probe: other bits from "
                    + ", ".join(m.phrase() for m in differing),
                    extra=(*hit.extra, *(e for m in differing for e in m.evidence)),
                )
            )
        elif relevant and _probed_whole(hit):
            note = "probe: identical " + ", ".join(m.phrase() for m in relevant)
            lowered = _lowered(hit, RULES_BY_ID[hit.rule].severity)
            out.append(replace(lowered, active=False, measured=-1, measured_note=note))
        else:
            out.append(hit)
    return [hit for hit in out if not _explained_probe_hit(hit, explained)]


def _explained_probe_hit(hit: Hit, explained: set[tuple[str, str]]) -> bool:
    return hit.rule == RULE and (hit.component or "").split("/", 1) in (
        [device, family] for device, family in explained
    )


def is_probe_result(change: Change) -> bool:
    """A change of one op's result: `probe_hits` reports it per op family, or the cause it
    confirms carries it as evidence."""
    path = change.path
    return len(path) > 4 and path[0] == "probe" and path[1] == "devices" and path[3] == "ops"


def probe_hits(a: Doc, b: Doc) -> list[Hit]:
    """One hit per op family whose digests differ on a device both probes ran, before any is
    folded into the cause it confirms (`apply_probe` does both)."""
    return _family_hits(compare_probes(a, b))


def _family_hits(measured: Iterable[Measured]) -> list[Hit]:
    return [
        Hit(
            RULE,
            m.evidence[0][0],
            m.evidence[0][1],
            m.evidence[0][2],
            title=f"measured: {m.phrase()} computes other bits (probe), and no recorded "
            "difference explains it",
            component=f"{m.device}/{m.family}",
            extra=m.evidence[1:],
        )
        for m in measured
        if m.differs
    ]
