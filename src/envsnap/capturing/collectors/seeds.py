"""`seeds`: declared seeds and determinism settings, and the observed RNG state.

The declaration comes from a SeedManager passed as `seeds=` to `envsnap.capture`, or else the
last one applied in this process. The observed part reads only libraries the job already
imported (it never imports torch or numpy, and never initialises CUDA), and hashes RNG states
rather than storing them.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.manifest.canonical import canonical_bytes
from envsnap.manifest.records import DeclaredBy, SeedsSection


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _declared(context: CaptureContext) -> tuple[DeclaredBy | None, Any, dict[str, str]]:
    """(where from, the manager or bare int seed, unknowns)."""
    given = context.inputs.get("seeds")
    if given is None:
        seeding = sys.modules.get("envsnap.training.seeding")
        manager = seeding.last_applied() if seeding is not None else None
        return ("process" if manager is not None else None), manager, {}
    if isinstance(given, int) and not isinstance(given, bool):
        return "argument", given, {}
    seeding = sys.modules.get("envsnap.training.seeding")
    if seeding is not None and isinstance(given, seeding.SeedManager):
        return "argument", given, {}
    reason = f"seeds= was a {type(given).__name__}; expected an envsnap SeedManager or an int"
    return None, None, {"master_seed": reason}


def _observed(context: CaptureContext) -> dict[str, Any]:
    from envsnap.training.seeding.state import cuda_initialized, numpy_legacy_state, python_state

    digests = {"python": _sha256(canonical_bytes(python_state()))}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        legacy = numpy_legacy_state(numpy.random.get_state(legacy=True))
        digests["numpy"] = _sha256(canonical_bytes(legacy))
    observed: dict[str, Any] = {
        "pythonhashseed": context.env.get("PYTHONHASHSEED"),
        "state_digests": digests,
    }
    torch = context.job_torch()
    if torch is None:
        return observed
    digests["torch"] = _sha256(bytes(torch.get_rng_state().tolist()))
    initialized = cuda_initialized()
    observed.update(
        torch_imported=True,
        torch_initial_seed=int(torch.initial_seed()),
        cuda_initialized=initialized,
    )
    if initialized:
        observed["cuda_initial_seeds"] = {
            str(index): int(generator.initial_seed())
            for index, generator in enumerate(torch.cuda.default_generators)
        }
    return observed


def collect(context: CaptureContext) -> SeedsSection:
    declared_by, declared, unknown = _declared(context)
    fields: dict[str, Any] = {"declared_by": declared_by, "unknown": unknown}
    if isinstance(declared, int):
        fields["master_seed"] = declared
    elif declared is not None:
        fields.update(
            master_seed=declared.master_seed,
            rank=declared.rank,
            derived=dict(declared.seeded),
            seeded=sorted(declared.seeded),
            level=declared.level,
            flags=declared.flags,
            warnings=list(declared.warnings),
        )
    if not context.in_job:
        # A CLI beside the job has its own, freshly seeded RNGs: their state says nothing
        # about the job, and would differ on every capture.
        reason = "captured from outside the job; use envsnap.capture() inside it"
        unknown.update(state_digests=reason, torch_initial_seed=reason)
        return SeedsSection(**fields, pythonhashseed=context.env.get("PYTHONHASHSEED"))
    return SeedsSection(**fields, **_observed(context))


COLLECTOR = Collector(
    name="seeds",
    collect=collect,
    timeout_s=5.0,
    description="Declared seeds and determinism level; digests of the observed RNG states.",
)
