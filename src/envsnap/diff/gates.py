"""Settings that cannot act on either side rank as what they are: latent, or info.

A state one side could not resolve (effective TF32 where the torch flags were not stated) is
latent and one step lower for close and conclusion: it cannot be compared, only inferred.

A GPU-only setting (cuDNN, cuBLAS, NCCL, TF32 variables and flags, CUDA libraries) cannot change
results when neither side's job ran on a GPU; a TF32 setting cannot when neither side can run
TF32 (its GPUs lack it, or its torch was built against CUDA before 11). The state of a random
generator that starts from OS entropy (python's `random`, numpy's legacy global RNG) differs
in every process unless it is seeded: when neither side declares it seeded, a different state
digest is what an unseeded generator looks like, not a changed condition (torch's too, where
its initial seed is a 64-bit draw, as in newer releases).
A generator both sides seeded from the same master seed starts from the same state, so a
different digest at capture says the job drew a different count of random numbers before it:
a consequence of another difference (batch, dtype, code), ranked below any stated cause.

What the job could not have felt is info as well: a generic package that neither job had
imported by the time it captured with its model, untracked files none of which is Python
code, a patch step of the platform within one release series (patch_levels.py), and one
instruction set under another OS's name for it (`AMD64` and `x86_64`, cpu_arch.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.cpu_arch import spelling_only
from envsnap.diff.derived import Hit, get
from envsnap.diff.device import gpu_in_use, tf32_build, tf32_gpu
from envsnap.diff.gpu_facts import cudnn_toggled
from envsnap.diff.grouping import component
from envsnap.diff.patch_levels import within_series
from envsnap.diff.report import SEVERITIES, Severity

Doc = dict[str, Any]

# Rules about TF32 settings: they matter only where a GPU can run TF32 (numerics.md rule 3).
TF32_RULES = frozenset(
    {
        "flip.torch-1.12-tf32",
        "flip.torch-2.9-fp32-precision",
        "precision.tf32-matmul",
        "precision.tf32-conv",
        "precision.tf32-override",
    }
)
# Generators whose initial state is drawn from OS entropy at import.
ENTROPY_SEEDED = ("python", "numpy")
# torch's default generator started from a constant seed (67280421310721) in older releases and
# from a 64-bit draw from OS entropy in newer ones (observed: 2.13.0 gives another initial seed
# in each process). An initial seed of 2**32 or more on an unseeded side is such a draw: a job
# that seeds by hand uses a small number, and envsnap's SeedManager declares it seeded.
ENTROPY_SEED_FLOOR = 2**32
_UNSEEDED: tuple[Severity, Severity, Severity] = ("low", "info", "info")
_LOW: tuple[Severity, Severity, Severity] = ("low", "low", "low")
_INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")
_DRAWN_DIFFERENTLY: tuple[Severity, Severity, Severity] = ("medium", "low", "info")


def apply_gates(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """Lower the hits whose mechanism cannot act on either side."""
    no_gpu = gpu_in_use(a) is False and gpu_in_use(b) is False
    no_tf32 = all(tf32_gpu(doc) is False or tf32_build(doc) is False for doc in (a, b))
    out: list[Hit] = []
    toggled = cudnn_toggled(a, b)
    unseeded: set[str | None] = set(_unseeded_on_both_sides(a, b))
    no_seed_risk = any(hit.rule == "shared.no-seed" for hit in hits)
    same_seed: set[str | None] = set(_seeded_alike(a, b))
    differing = _generators(hits, unseeded, _generator_of)
    drawn = _generators(hits, same_seed, _state_of)
    for hit in hits:
        if _generator_of(hit.path) in unseeded:
            title = _unseeded_title(differing)
            # Where no seed is recorded at all, the shared risk says it, more severely: the
            # state is its symptom, not a difference to rank above it.
            severity = _INFO if no_seed_risk else _UNSEEDED
            out.append(replace(hit, severity=severity, active=False, title=title))
            continue
        if _state_of(hit.path) in same_seed:
            title = _drawn_differently_title(drawn)
            out.append(replace(hit, severity=_DRAWN_DIFFERENTLY, active=False, title=title))
            continue
        if toggled and hit.path.startswith("torch.effective.conv_fp32."):
            # cuDNN itself was switched off: conv TF32 follows from that one cause.
            out.append(replace(hit, rule="algo.cudnn-api", title=None))
            continue
        if _unresolved(hit):
            out.append(_latent(hit))
            continue
        rule = RULES_BY_ID[hit.rule]
        if hit.rule == "code.untracked" and _no_untracked_python(a, b):
            title = "untracked files differ, none of them Python code the job could import"
            out.append(replace(hit, severity=_INFO, active=False, title=title))
        elif hit.rule in GENERIC_PACKAGE_RULES and not_imported(hit.path, a, b):
            qualifier = "the job had not imported it"
            out.append(replace(hit, severity=_INFO, active=False, qualifier=qualifier))
        elif no_gpu and rule.gpu_only:
            qualifier = "GPU-only; neither side ran on a GPU"
            out.append(replace(hit, severity=_INFO, active=False, qualifier=qualifier))
        elif no_tf32 and hit.rule in TF32_RULES:
            out.append(replace(hit, severity=_LOW, active=False))
        elif spelling_only(hit):
            qualifier = "one instruction set under two names"
            out.append(replace(hit, severity=_INFO, active=False, qualifier=qualifier))
        elif (step := within_series(hit)) is not None:
            severity, qualifier = step
            out.append(replace(hit, severity=severity, active=False, qualifier=qualifier))
        else:
            out.append(hit)
    return out


# The generic package rules: a package no named rule knows to act on numerics.
GENERIC_PACKAGE_RULES = frozenset({"stack.package", "stack.package-major"})
_INSTALLED = "packages.installed."


def not_imported(path: str, a: Doc, b: Doc) -> bool:
    """True when a package's change cannot have acted on either job: both records are in-job
    captures taken with the job's model (its imports done) and neither job had imported the
    package (a side without the package counts as not importing it)."""
    if not path.startswith(_INSTALLED):
        return False
    name = component(path)
    seen: list[object] = []
    for doc in (a, b):
        precision = doc.get("precision")
        if not (isinstance(precision, dict) and precision.get("model_class")):
            return False
        packages = doc.get("packages")
        installed = packages.get("installed") if isinstance(packages, dict) else None
        if not isinstance(installed, dict):
            return False
        package = installed.get(name)
        if isinstance(package, dict):
            seen.append(package.get("imported"))
    return bool(seen) and all(value is False for value in seen)


def _no_untracked_python(a: Doc, b: Doc) -> bool:
    """True when both records counted the untracked Python files and found none: logs,
    outputs and notes cannot change what the job computes unless it reads them."""
    counts = [get(doc, "code.untracked_python") for doc in (a, b)]
    return counts == [0, 0]


_STATE_DIGEST = "seeds.state_digests."


def _state_of(path: str) -> str | None:
    """The generator a state-digest path is about, else None."""
    return path[len(_STATE_DIGEST) :] if path.startswith(_STATE_DIGEST) else None


def _generator_of(path: str) -> str | None:
    """The generator a state-digest or torch initial-seed path is about, else None."""
    return "torch" if path == "seeds.torch_initial_seed" else _state_of(path)


def _generators(
    hits: list[Hit], among: set[str | None], of: Callable[[str], str | None]
) -> list[str]:
    """The generators among `among` that the hits are about, in order, each named by `of`."""
    return [name for hit in hits if (name := of(hit.path)) in among and name]


def _unseeded_title(generators: list[str]) -> str:
    """One title for every unseeded generator whose state differs: they are one finding."""
    names = ", ".join(sorted(set(generators)))
    return (
        f"RNG state differs ({names}): seeded on neither side, so it starts from OS entropy "
        "in each process"
    )


def _seeded(doc: Doc) -> set[str]:
    seeds = doc.get("seeds")
    listed = seeds.get("seeded") if isinstance(seeds, dict) else None
    return {str(name) for name in listed} if isinstance(listed, list) else set()


def _seeded_alike(a: Doc, b: Doc) -> set[str]:
    """The generators both sides declare seeded from one and the same master seed."""
    seeds = [get(doc, "seeds.master_seed") for doc in (a, b)]
    if not all(type(seed) is int for seed in seeds) or seeds[0] != seeds[1]:
        return set()
    return _seeded(a) & _seeded(b)


def _drawn_differently_title(generators: list[str]) -> str:
    names = ", ".join(sorted(set(generators)))
    return (
        f"RNG state differs under the same seed ({names}): the job drew a different count "
        "of random numbers before capture, so something else it ran changed"
    )


def _torch_from_entropy(doc: Doc) -> bool:
    seeds = doc.get("seeds")
    initial = seeds.get("torch_initial_seed") if isinstance(seeds, dict) else None
    return isinstance(initial, int) and initial >= ENTROPY_SEED_FLOOR


def _unseeded_on_both_sides(a: Doc, b: Doc) -> set[str]:
    """The entropy-seeded generators that neither side declares seeded."""
    declared = _seeded(a) | _seeded(b)
    entropy = [
        *ENTROPY_SEEDED,
        *(("torch",) if _torch_from_entropy(a) and _torch_from_entropy(b) else ()),
    ]
    return {name for name in entropy if name not in declared}


def _unresolved(hit: Hit) -> bool:
    """A recorded effective TF32 state that one side could not resolve (its flags were not
    stated): the two sides cannot be compared on it, only inferred from defaults."""
    return hit.path.startswith("torch.effective.") and "unknown" in (hit.a, hit.b)


def _latent(hit: Hit) -> Hit:
    """Counted as a difference for bitwise, one step lower for close and conclusion, and not
    shown to act (as a value one side did not capture)."""
    rule = RULES_BY_ID[hit.rule].severity
    lowered = [rule[0]] + [SEVERITIES[min(SEVERITIES.index(s) + 1, 3)] for s in rule[1:]]
    severity: tuple[Severity, Severity, Severity] = (lowered[0], lowered[1], lowered[2])
    return replace(hit, severity=severity, active=False)
