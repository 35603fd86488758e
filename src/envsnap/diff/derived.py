"""Derived findings: facts that need both manifests at once, not one changed path.

Each function reads a few fields of both documents and returns `Hit`s for rules of the
catalog marked `derived`. They are symmetric in A and B (swapping the sides reports the same
paths), and say nothing above `info` when both sides are identical.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from envsnap.diff.changes import dotted
from envsnap.diff.report import Basis, Severity
from envsnap.diff.sides import Side, where
from envsnap.diff.versions import crosses, within

Doc = dict[str, Any]


@dataclass(frozen=True)
class Hit:
    """A rule applied at a path, before grouping and ranking.

    `severity` overrides the rule's, per target; `active` overrides the rule's `latent` (True:
    the mechanism is shown to act on the run); `component` overrides the one read from the
    path; `extra` adds evidence beyond (path, a, b); `magnitude` orders equal findings by
    effect size (a major version step outweighs a patch); `inferred` says what the hit's values
    were inferred from when the records do not state them (None: stated); `basis` overrides the
    basis read from `inferred` (a shared risk, a note about what is unknown); `gap`, on a note
    about a value one side does not record, names that side and the reason it gives;
    `measured` is 1 when the numerics probe confirms the mechanism, -1 when it rules it out
    (`measured_note` says what it measured; see probe_evidence.py); `consequence_of` names the
    cause whose finding this hit joins, as one way that cause acts (the random streams of a
    changed GPU), where its rule alone would make a finding of its own; `qualifier` follows
    the finding's title in parentheses, saying why a gate lowered it.
    """

    rule: str
    path: str
    a: Any = None
    b: Any = None
    title: str | None = None
    severity: tuple[Severity, Severity, Severity] | None = None
    active: bool | None = None
    component: str | None = None
    extra: tuple[tuple[str, Any, Any], ...] = ()
    magnitude: int = 0
    inferred: str | None = None
    basis: Basis | None = None
    gap: tuple[Side, str | None] | None = None
    measured: int = 0
    measured_note: str | None = None
    consequence_of: str | None = None
    qualifier: str | None = None


def shown(value: Any) -> str:
    """A value as a title shows it: '(absent)' where a side has none."""
    return "(absent)" if value is None else str(value)


def way_of(hit: Hit, cause: str, component: str = "", title: str | None = None) -> Hit:
    """`hit` as one way `cause` acts: it joins the finding grouped under (cause, component),
    the component of a cause that is one finding per rule being "", titled `title` if given."""
    return replace(
        hit, consequence_of=cause, component=component, title=hit.title if title is None else title
    )


def get(doc: Doc, dotted_path: str) -> Any:
    """The value at a dotted path, or None when any step is missing."""
    node: Any = doc
    for part in dotted_path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _first(doc: Doc, *paths: str) -> Any:
    for path in paths:
        value = get(doc, path)
        if value is not None:
            return value
    return None


# Where a package's version is also recorded when the package list lacks it (an imported
# collect_env report lists conda packages only, or none).
_VERSION_FALLBACKS: dict[str, tuple[str, ...]] = {
    "torch": ("cuda_stack.torch_version", "torch.version")
}


def version_of(doc: Doc, package: str) -> str | None:
    value = get(doc, "packages.installed")
    if isinstance(value, dict) and isinstance(value.get(package), dict):
        version = value[package].get("version")
        if isinstance(version, str):
            return version
    fallback = _first(doc, *_VERSION_FALLBACKS.get(package, ()))
    return fallback if isinstance(fallback, str) else None


def _pkg_path(package: str) -> str:
    return dotted(("packages", "installed", package, "version"))


# --- version flips: (package, boundary, rule id) ------------------------------------------
FLIPS: tuple[tuple[str, str, str], ...] = (
    ("torch", "1.12", "flip.torch-1.12-tf32"),
    ("torch", "2.0", "flip.torch-2.0-foreach"),
    ("torch", "2.5", "flip.torch-2.5-sdpa"),
    ("torch", "2.9", "flip.torch-2.9-fp32-precision"),
    ("transformers", "4.46", "flip.transformers-4.46-ga-loss"),
    ("numpy", "2.0", "flip.numpy-2.0-nep50"),
    ("numpy", "1.25", "flip.numpy-1.25-argsort"),
    ("tokenizers", "0.19.1", "flip.tokenizers-0.19.1"),
)


def version_flips(a: Doc, b: Doc) -> Iterator[Hit]:
    """Expand version changes into the default flips they imply."""
    for package, boundary, rule in FLIPS:
        va, vb = version_of(a, package), version_of(b, package)
        if va is not None and vb is not None and crosses(va, vb, boundary):
            yield Hit(rule, _pkg_path(package), va, vb)


# Python 3.3 salts str hashing per process by default (PYTHONHASHSEED unset means random);
# before, hashing was fixed unless -R was given (https://docs.python.org/3/reference/
# datamodel.html#object.__hash__: "Changed in version 3.3: Hash randomization is enabled by
# default").
HASH_RANDOMIZATION_SINCE = "3.3"


def hash_randomization_default(a: Doc, b: Doc) -> Iterator[Hit]:
    """A Python change across 3.3: set and dict iteration order of str keys changes between
    processes on the newer side only, unless that side fixed PYTHONHASHSEED."""
    va, vb = get(a, "python.version"), get(b, "python.version")
    if not crosses(va, vb, HASH_RANDOMIZATION_SINCE):
        return
    newer, side = (b, "B") if within(vb, HASH_RANDOMIZATION_SINCE, None) else (a, "A")
    stated = get(newer, "python.hash_randomization")
    variables = get(newer, "env.variables")
    if stated is False or (isinstance(variables, dict) and variables.get("PYTHONHASHSEED")):
        return  # the newer side fixed its hash seed
    states = (False, True) if newer is b else (True, False)
    inferred = (
        None
        if stated is True
        else f"{side}: Python {vb if newer is b else va} defaults to a random hash seed; whether "
        "PYTHONHASHSEED was set is not recorded"
    )
    yield Hit(
        "randomness.pythonhashseed",
        "python.hash_randomization",
        *states,
        title=f"Python {va} → {vb} crosses 3.3: str hashing is salted per process on {side}, "
        "so set order of strings changes from run to run",
        inferred=inferred,
        active=inferred is None,
        extra=(("python.version", va, vb),),
    )


# --- batch semantics -----------------------------------------------------------------------
def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def batch_layout(doc: Doc) -> tuple[int | None, tuple[Any, ...]] | None:
    """(global batch, layout) from the parallel section; None when it was not captured.

    The global batch is the section's computed `global_batch`, else the declared one, else
    micro-batch x data-parallel size x accumulation steps when all three are known.
    """
    section = doc.get("parallel")
    if not isinstance(section, dict):
        return None
    micro = _int(_first(section, "micro_batch_size", "dataloader.batch_size"))
    accum = _int(section.get("grad_accum_steps"))
    dp = _int(_first(section, "dp_size", "world_size"))
    layout = (
        micro,
        dp,
        accum,
        _int(section.get("world_size")),
        _int(section.get("tp_size")),
        _int(section.get("pp_size")),
    )
    declared = _int(_first(section, "global_batch", "global_batch_declared"))
    if declared is not None:
        return declared, layout
    if micro is not None and dp is not None and accum is not None:
        return micro * dp * accum, layout
    return None, layout


def global_batch(a: Doc, b: Doc) -> Iterator[Hit]:
    la, lb = batch_layout(a), batch_layout(b)
    if la is None or lb is None:
        return
    (ga, layout_a), (gb, layout_b) = la, lb
    if ga is not None and gb is not None and ga != gb:
        yield Hit("semantics.global-batch", "parallel", ga, gb)
    elif ga is not None and ga == gb and layout_a != layout_b:
        yield Hit(
            "semantics.batch-layout",
            "parallel",
            _layout_text(layout_a),
            _layout_text(layout_b),
            title=f"same global batch ({ga}) reached with a different layout",
        )


def _layout_text(layout: tuple[Any, ...]) -> str:
    micro, dp, accum, world, tp, pp = layout
    return f"micro {micro} x dp {dp} x accum {accum} (world {world}, tp {tp}, pp {pp})"


def _accumulation(doc: Doc) -> int | None:
    layout = batch_layout(doc)
    accum = layout[1][2] if layout else None
    return accum if isinstance(accum, int) and not isinstance(accum, bool) else None


# --- known bug windows (reported when the window holds on exactly one side) ---------------
def _in_ga_window(doc: Doc) -> bool:
    accum = _accumulation(doc)
    version = version_of(doc, "transformers")
    # Averaged micro-batch means before 4.46; loss scaled with the steps in 4.47.0
    # (huggingface/transformers#35438).
    buggy = within(version, None, "4.46") or within(version, "4.47.0", "4.47.1")
    return buggy and (accum or 1) > 1


def _in_sdpa_window(doc: Doc) -> bool | None:
    """True on torch 2.5.0 with an sm90 GPU; None on torch 2.5.0 when no GPU's compute
    capability is recorded (an imported report that names no GPU)."""
    if not within(version_of(doc, "torch"), "2.5.0", "2.5.1"):
        return False
    devices = get(doc, "gpu.devices")
    capabilities = (
        [d.get("compute_capability") for d in (devices or {}).values() if isinstance(d, dict)]
        if isinstance(devices, dict)
        else []
    )
    if "9.0" in capabilities:
        return True
    return None if not any(capabilities) else False


_LLAMA3 = re.compile(r"llama[-_ ]?3", re.IGNORECASE)


def _mentions_llama3(node: Any) -> bool:
    if isinstance(node, str):
        return bool(_LLAMA3.search(node))
    if isinstance(node, dict):
        return any(_mentions_llama3(k) or _mentions_llama3(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_mentions_llama3(v) for v in node)
    return False


def _in_llama3_window(doc: Doc) -> bool:
    return within(version_of(doc, "tokenizers"), "0.19.0", "0.19.1") and _mentions_llama3(
        doc.get("tokenizer")
    )


# A predicate says whether a side is in a bug window: True, False, or None when the side is in
# its version range and does not record the other condition (the GPU, say).
BUG_WINDOWS: tuple[tuple[str, Callable[[Doc], bool | None], str], ...] = (
    ("bug.transformers-ga-loss", _in_ga_window, _pkg_path("transformers")),
    ("bug.torch-2.5.0-cudnn-sdpa-h100", _in_sdpa_window, _pkg_path("torch")),
    ("bug.tokenizers-0.19.0-llama3", _in_llama3_window, _pkg_path("tokenizers")),
)


def bug_windows(a: Doc, b: Doc) -> Iterator[Hit]:
    """A side in a known bug window and the other outside it. A side in the version range
    whose other condition is not recorded is inferred to be in it, against a side outside."""
    from envsnap.diff.catalog import RULES_BY_ID  # the catalog imports this module's helpers

    for rule, predicate, path in BUG_WINDOWS:
        in_a, in_b = predicate(a), predicate(b)
        if in_a == in_b or (None in (in_a, in_b) and True in (in_a, in_b)):
            continue
        unknown = next((side for side, state in (("A", in_a), ("B", in_b)) if state is None), None)
        if unknown is None:
            yield Hit(rule, path, _window_state(in_a), _window_state(in_b))
            continue
        yield Hit(
            rule,
            path,
            _window_state(in_a),
            _window_state(in_b),
            title=f"{RULES_BY_ID[rule].title}, if {unknown}'s unrecorded conditions hold: {unknown} "
            "is in the version range",
            active=False,
            inferred=f"{unknown}: in the version range; the rest of the window's condition is "
            "not recorded",
        )


def _window_state(state: bool | None) -> str:
    return {True: "in window", False: "outside", None: "in range, condition unrecorded"}[state]


# --- determinism ---------------------------------------------------------------------------
def determinism(doc: Doc) -> bool | None:
    """True when deterministic settings are all on, False when not, None when unknown."""
    torch = doc.get("torch")
    if not isinstance(torch, dict):
        return None
    algorithms = get(torch, "deterministic.algorithms")
    cudnn_det = get(torch, "cudnn.deterministic")
    benchmark = get(torch, "cudnn.benchmark")
    if None in (algorithms, cudnn_det, benchmark):
        return None
    return bool(algorithms and cudnn_det and not benchmark)


def determinism_mismatch(a: Doc, b: Doc) -> Iterator[Hit]:
    """Determinism settings that differ, or that a side does not record. Both sides left
    nondeterministic is a risk they share (`shared_risks.py`), not a difference."""
    da, db = determinism(a), determinism(b)
    rule = "algo.determinism-mismatch"
    if da is None and db is None:
        yield Hit(
            rule,
            "torch.deterministic",
            None,
            None,
            title="determinism settings captured on neither side: bitwise comparison uninformative",
            severity=("info", "info", "info"),
            basis="unknown",
        )
    elif (da is None) != (db is None):
        missing = where("a" if da is None else "b", "in")
        yield Hit(
            rule,
            "torch.deterministic",
            da,
            db,
            title=f"determinism settings not captured {missing}: bitwise comparison uninformative",
            basis="unknown",
        )
    elif da != db:
        yield Hit(
            rule,
            "torch.deterministic",
            "deterministic" if da else "nondeterministic",
            "deterministic" if db else "nondeterministic",
            title="one run was deterministic and the other was not: bitwise comparison uninformative",
        )


def is_envsnap_cli(argv: Any) -> bool:
    """True when the command line is an `envsnap` CLI run (a capture taken outside the job)."""
    if not isinstance(argv, list) or not argv or not isinstance(argv[0], str):
        return False
    head = argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    return head in ("envsnap", "envsnap.exe") or argv[0].replace("\\", "/").endswith(
        "envsnap/__main__.py"
    )


def training_argv(a: Doc, b: Doc) -> Iterator[Hit]:
    """A changed command line of the job itself (not of an `envsnap capture` run), flag by
    flag: output paths and run names are noise, hyperparameters are semantics."""
    from envsnap.diff.argv import argv_hits

    argv_a, argv_b = get(a, "run.argv"), get(b, "run.argv")
    if argv_a == argv_b or is_envsnap_cli(argv_a) or is_envsnap_cli(argv_b):
        return
    if isinstance(argv_a, list) and isinstance(argv_b, list):
        yield from argv_hits(argv_a, argv_b)


DERIVED: tuple[Callable[[Doc, Doc], Iterator[Hit]], ...] = (
    version_flips,
    hash_randomization_default,
    global_batch,
    bug_windows,
    determinism_mismatch,
    training_argv,
)


def derived_hits(a: Doc, b: Doc) -> list[Hit]:
    """Every derived hit for the pair, and the risks both sides share."""
    from envsnap.diff.cpu_facts import CPU_DERIVED
    from envsnap.diff.gpu_facts import GPU_DERIVED
    from envsnap.diff.os_family import os_family
    from envsnap.diff.placement import PLACEMENT_DERIVED
    from envsnap.diff.shared_risks import shared_risks
    from envsnap.diff.system_toolkit import system_toolkit

    functions = (
        *DERIVED,
        *GPU_DERIVED,
        system_toolkit,
        os_family,
        *CPU_DERIVED,
        *PLACEMENT_DERIVED,
        shared_risks,
    )
    return [hit for function in functions for hit in function(a, b)]
