"""Risks both sides share: a source of randomness both records show left open.

A difference explains a disagreement; when none does, what both runs left random may. Each
function here reads one such source on both sides and yields one `shared` hit when both leave
it open (rules `shared.*`, catalog/shared.py). A side that does not record the source gives no
hit: that is unknown, not shared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Doc, Hit, determinism, get, is_envsnap_cli
from envsnap.diff.device import gpu_in_use
from envsnap.diff.report import Severity

_INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")


# --- PYTHONHASHSEED ------------------------------------------------------------------------
_HASH_SEED = "PYTHONHASHSEED"


def hash_seed_open(doc: Doc) -> bool | None:
    """True when str hashing is salted per process (PYTHONHASHSEED unset or 'random'), False
    when it is fixed, None when the side records neither the variable nor python."""
    if not isinstance(doc.get("python"), dict):
        return None
    if get(doc, "python.hash_randomization") is False:
        return False  # PYTHONHASHSEED=0 turns hash randomization off
    seeds, variables = doc.get("seeds"), get(doc, "env.variables")
    if isinstance(seeds, dict):
        value = seeds.get("pythonhashseed")
    elif isinstance(variables, dict) and selected(doc, _HASH_SEED):
        value = variables.get(_HASH_SEED)
    else:
        return None
    return value is None or value == "random"


def selected(doc: Doc, name: str) -> bool:
    """True when the side's env section looked for variable `name` (by name or family) and
    does not call it unknown: only then does its absence mean unset. A collect_env report
    selects almost nothing, so an import says nothing of PYTHONHASHSEED."""
    env = doc.get("env")
    if not isinstance(env, dict):
        return False
    unknown = env.get("unknown")
    if isinstance(unknown, dict) and ("variables.*" in unknown or f"variables.{name}" in unknown):
        return False
    names, prefixes = env.get("names"), env.get("prefixes")
    return (isinstance(names, list) and name in names) or (
        isinstance(prefixes, list)
        and any(isinstance(prefix, str) and name.startswith(prefix) for prefix in prefixes)
    )


def hash_seed(a: Doc, b: Doc) -> Iterator[Hit]:
    if hash_seed_open(a) and hash_seed_open(b):
        value_a, value_b = get(a, "seeds.pythonhashseed"), get(b, "seeds.pythonhashseed")
        yield Hit(
            "shared.hash-seed",
            "seeds.pythonhashseed",
            value_a,
            value_b,
            title=RULES_BY_ID["shared.hash-seed"].title,
            basis="shared",
        )


# --- seeds ---------------------------------------------------------------------------------
def declares_seed(doc: Doc) -> bool | None:
    """True when the side records a declared seed, False when its seeds record, taken in the
    job, shows none, None when the side cannot say (no seeds section, or a capture by the
    envsnap CLI, which cannot see the job's seeds)."""
    seeds = doc.get("seeds")
    if not isinstance(seeds, dict):
        return None
    if seeds.get("master_seed") is not None or seeds.get("seeded"):
        return True
    return None if is_envsnap_cli(get(doc, "run.argv")) else False


def no_seed(a: Doc, b: Doc) -> Iterator[Hit]:
    if declares_seed(a) is not False or declares_seed(b) is not False:
        return
    observed_a, observed_b = get(a, "seeds.torch_initial_seed"), get(b, "seeds.torch_initial_seed")
    if observed_a is not None and observed_a == observed_b:
        return  # the job seeded torch itself, with the same seed on both sides
    yield Hit(
        "shared.no-seed",
        "seeds.master_seed",
        None,
        None,
        title=RULES_BY_ID["shared.no-seed"].title,
        extra=(("seeds.torch_initial_seed", observed_a, observed_b),),
        basis="shared",
    )


# --- DataLoader workers --------------------------------------------------------------------
def _workers(doc: Doc) -> int:
    count = get(doc, "parallel.dataloader.num_workers")
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def workers_open(doc: Doc) -> bool:
    """True when the side's DataLoader runs workers whose seeds follow an unseeded torch RNG:
    workers, no generator and no worker_init_fn, and no torch seed declared."""
    loader = get(doc, "parallel.dataloader")
    if not isinstance(loader, dict) or _workers(doc) <= 0:
        return False
    if loader.get("generator_seed") is not None or loader.get("worker_init_fn") is not None:
        return False
    seeded = get(doc, "seeds.seeded")
    return not (isinstance(seeded, list) and "torch" in seeded)


def dataloader_workers(a: Doc, b: Doc) -> Iterator[Hit]:
    if workers_open(a) and workers_open(b):
        yield Hit(
            "shared.dataloader-workers",
            "parallel.dataloader.num_workers",
            _workers(a),
            _workers(b),
            title=f"both sides leave DataLoader worker seeds random: {_workers(a)} and "
            f"{_workers(b)} workers, no generator or worker_init_fn, torch not seeded",
            extra=(
                ("parallel.dataloader.generator_seed", None, None),
                ("parallel.dataloader.worker_init_fn", None, None),
            ),
            basis="shared",
        )


# --- nondeterministic kernels --------------------------------------------------------------
def nondeterministic(a: Doc, b: Doc) -> Iterator[Hit]:
    """Both sides allowed nondeterministic kernels: a shared risk on a GPU; on the CPU, where
    few kernels are nondeterministic, a note at info."""
    if determinism(a) is not False or determinism(b) is not False:
        return
    on_gpu = True in (gpu_in_use(a), gpu_in_use(b))
    title = (
        RULES_BY_ID["shared.nondeterministic"].title
        if on_gpu
        else "neither run was deterministic (CPU only: few kernels differ)"
    )
    yield Hit(
        "shared.nondeterministic",
        "torch.deterministic.algorithms",
        get(a, "torch.deterministic.algorithms"),
        get(b, "torch.deterministic.algorithms"),
        title=title,
        severity=None if on_gpu else _INFO,
        extra=tuple(
            (path, get(a, path), get(b, path))
            for path in ("torch.cudnn.deterministic", "torch.cudnn.benchmark")
        ),
        basis="shared",
    )


SHARED_RISKS: tuple[Callable[[Doc, Doc], Iterator[Hit]], ...] = (
    hash_seed,
    no_seed,
    dataloader_workers,
    nondeterministic,
)


# How much of a run each open source reaches, larger first; it orders risks of equal severity
# (`Hit.magnitude`), never the rule id. No seed changes every draw from the first step
# (initialisation, dropout, shuffling); unseeded DataLoader workers change the draws made in
# the workers (augmentation). On a GPU, nondeterministic kernels reorder the sums of every
# backward pass that scatters or accumulates with atomics (index_add, scatter_add, embedding,
# interpolate and RoIAlign backward: the list in torch.use_deterministic_algorithms' docs), and
# the differences grow step by step; a salted str hash changes only what iterates over str
# sets, whose order few jobs feed into arithmetic. On the CPU, where few kernels are
# nondeterministic, the kernels' risk is last (and info).
REACH: dict[str, int] = {
    "shared.no-seed": 4,
    "shared.dataloader-workers": 3,
    "shared.nondeterministic": 2,  # on the CPU it is info, after every risk above info
    "shared.hash-seed": 1,
}


def shared_risks(a: Doc, b: Doc) -> Iterator[Hit]:
    """One hit per source of randomness both sides leave open, with its reach."""
    for risk in SHARED_RISKS:
        for hit in risk(a, b):
            yield replace(hit, magnitude=REACH[hit.rule])
