"""Derived findings about where the job ran: the image, the allocation, the CPU affinity.

- The image: one finding names the image on each side and every library it moves, from the
  image's own variables or, where only its NGC release is recorded, from the release table
  (those entries are inferred). The version changes the image explains (torch, the CUDA
  libraries, the image's variables, Python, the OS) are folded into it (`fold_image_moves`);
  the default flips a new torch brings stay findings of their own.
- The allocation: the partition, tasks, CPUs and GPUs per task, as one finding that joins the
  GPU finding (merge `hw.gpu`), where the GPU leads.
- The affinity: when the allowed CPUs change the thread count a job starts with, that
  consequence is an `env.threads` finding of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.catalog.placement import IMAGE_VARIABLES
from envsnap.diff.changes import dotted
from envsnap.diff.derived import Hit, get
from envsnap.diff.report import SEVERITY_RANK, TARGETS, Severity
from envsnap.diff.rules import compile_pattern
from envsnap.manifest.ngc_releases import NgcRelease, ngc_release

Doc = dict[str, Any]
IMAGE_RULE = "placement.image"
_SHOWN = {
    "torch": "torch",
    "cuda": "CUDA",
    "cuda_driver": "CUDA driver",
    "cudnn": "cuDNN",
    "cublas": "cuBLAS",
    "nccl": "NCCL",
    "tensorrt": "TensorRT",
    "python": "Python",
    "ubuntu": "Ubuntu",
}


def _value(doc: Doc, path: str) -> Any:
    fact = get(doc, path)
    return fact.get("value") if isinstance(fact, dict) else None


def image_label(doc: Doc) -> str | None:
    """How the image names itself: 'NGC PyTorch 24.10', a tag, an Apptainer image; None when
    the record states no image."""
    image = get(doc, "placement.image")
    if not isinstance(image, dict):
        return None
    release = _value(doc, "placement.image.release")
    if release:
        product = _value(doc, "placement.image.product")
        return f"NGC {product} {release}" if product else f"NGC release {release}"
    for field in ("tag", "path", "name", "image_id"):
        value = _value(doc, f"placement.image.{field}")
        if value:
            return str(value)
    return None


_IDENTITY_FIELDS = ("release", "tag", "path", "name", "image_id", "build_id")


def _identity(doc: Doc) -> tuple[Any, ...]:
    return tuple(_value(doc, f"placement.image.{field}") for field in _IDENTITY_FIELDS)


def _row(doc: Doc) -> NgcRelease | None:
    return ngc_release(_value(doc, "placement.image.release"))


def _library(doc: Doc, name: str) -> tuple[Any, str | None]:
    """(version, what it was inferred from) of a library the image ships: stated by the image
    (None), else the NGC release table's row (its source)."""
    stated = _value(doc, f"placement.image.libraries.{name}")
    if stated is not None:
        return stated, None
    row = _row(doc)
    value = row.libraries().get(name) if row else None
    if value is None or row is None:
        return None, None
    return value, f"NGC PyTorch {row.release} as its source states it ({row.source_of(name)})"


def _moves(a: Doc, b: Doc) -> list[tuple[str, Any, Any, str | None]]:
    """(library, version A, version B, inferred from) for each library the two images ship
    in different versions, both known."""
    names: list[str] = []
    for doc in (a, b):
        stated = get(doc, "placement.image.libraries")
        names += list(stated) if isinstance(stated, dict) else []
        row = _row(doc)
        names += list(row.libraries()) if row else []
    moves = []
    for name in dict.fromkeys(names):
        (va, how_a), (vb, how_b) = _library(a, name), _library(b, name)
        if va is not None and vb is not None and va != vb:
            how = "; ".join(dict.fromkeys(h for h in (how_a, how_b) if h)) or None
            moves.append((name, va, vb, how))
    return moves


def image_change(a: Doc, b: Doc) -> Iterator[Hit]:
    """The image on each side as one finding, naming every library it moves; the moves known
    only from the release table come as a second, inferred hit of the same finding."""
    if _identity(a) == _identity(b) or not (image_label(a) or image_label(b)):
        return
    label_a, label_b = image_label(a) or "no image stated", image_label(b) or "no image stated"
    moves = _moves(a, b)
    shown = ", ".join(f"{_SHOWN.get(name, name)} {va} → {vb}" for name, va, vb, _ in moves)
    inferred = [move for move in moves if move[3]]
    note = ""
    if inferred:
        which = "" if len(inferred) == len(moves) else "some "
        note = f" ({which}inferred from the NGC release table's sources)"
    title = f"container image changed: {label_a} → {label_b}"
    title += f"; it moves {shown}{note}" if moves else ""
    field = next(
        (
            name
            for name, va, vb in zip(_IDENTITY_FIELDS, _identity(a), _identity(b), strict=True)
            if va != vb
        ),
        "release",
    )
    path = f"placement.image.{field}.value"
    stated = tuple(
        (f"placement.image.libraries.{name}.value", va, vb)
        for name, va, vb, how in moves
        if not how
    )
    yield Hit(IMAGE_RULE, path, get(a, path), get(b, path), title, extra=stated)
    for name, va, vb, how in inferred:
        yield Hit(
            IMAGE_RULE,
            f"placement.image.libraries.{name}.value",
            va,
            vb,
            title=title,
            inferred=how,
        )


# The version changes an image change explains, by rule and path: folded into its finding.
_FOLDED_RULES = frozenset(
    {
        IMAGE_RULE,
        "stack.torch",
        "stack.triton",
        "stack.cuda-build",
        "stack.cuda-toolkit",
        "stack.cudnn",
        "stack.cublas",
        "stack.nccl",
        "stack.cuda-library",
        "stack.python",
        "stack.package",
        "stack.package-major",
        "env.os",
        "fallback",
    }
)
_FOLDED_PATHS = (
    "placement.image.**",
    f"env.variables.{{{','.join(IMAGE_VARIABLES)}}}",
    "packages.installed.{torch,torchvision,torchaudio,triton,pytorch-triton}.version",
    "packages.installed.nvidia-*.version",
    "cuda_stack.{torch_version,torch_git_version,torch_build,torch_cuda}",
    "cuda_stack.libraries.*.{version,selected}",
    "cuda_stack.libraries.*.selected.{version,source,package}",
    "torch.{version,git_version,cuda,nccl_version}",
    "torch.cudnn.version",
    "python.version",
    "system.{os_release,libc}",
)


@cache
def _folded_pattern() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{compile_pattern(p).pattern})" for p in _FOLDED_PATHS))


def _explained(hit: Hit) -> bool:
    if hit.rule not in _FOLDED_RULES or hit.inferred:
        return False
    parts = re.split(r"\.(?![^\[]*\])", hit.path)
    return _folded_pattern().fullmatch("\x1f".join(parts)) is not None


def _severity(hit: Hit) -> tuple[Severity, ...]:
    return hit.severity or RULES_BY_ID[hit.rule].severity


def fold_image_moves(hits: Sequence[Hit]) -> list[Hit]:
    """The hits, with the version changes an image change explains folded into its finding:
    their evidence joins it and it takes the most severe of their severities."""
    lead = next((h for h in hits if h.rule == IMAGE_RULE and h.title and not h.inferred), None)
    if lead is None:
        return list(hits)
    folded = [hit for hit in hits if hit is not lead and _explained(hit)]
    if not folded:
        return list(hits)
    levels = [_severity(hit) for hit in (lead, *folded)]
    worst = tuple(
        max((level[index] for level in levels), key=SEVERITY_RANK.__getitem__)
        for index in range(len(TARGETS))
    )
    known = {lead.path, *(path for path, _, _ in lead.extra)}
    extra = list(lead.extra)
    for hit in folded:
        for path, va, vb in ((hit.path, hit.a, hit.b), *hit.extra):
            if path not in known:
                known.add(path)
                extra.append((path, va, vb))
    merged = replace(
        lead,
        severity=(worst[0], worst[1], worst[2]),
        extra=tuple(extra),
        magnitude=max(hit.magnitude for hit in (lead, *folded)),
        active=True,
    )
    dropped = {id(hit) for hit in folded}
    return [merged if hit is lead else hit for hit in hits if id(hit) not in dropped]


_ALLOCATION_FIELDS = (
    "partition",
    "cluster",
    "nodes",
    "ntasks",
    "tasks_per_node",
    "cpus_per_task",
    "cpus_on_node",
    "cpu_bind",
)


def _leaves(doc: Doc, path: tuple[str, ...], value_key: str | None = None) -> dict[str, Any]:
    node = get(doc, ".".join(path))
    if not isinstance(node, dict):
        return {}
    out: dict[str, Any] = {}
    for key, item in node.items():
        shown = dotted((*path, key, value_key) if value_key else (*path, key))
        out[shown] = item.get(value_key) if value_key and isinstance(item, dict) else item
    return out


def _allocation(doc: Doc) -> dict[str, Any] | None:
    slurm = get(doc, "placement.slurm")
    pod = get(doc, "placement.kubernetes")
    if not isinstance(slurm, dict) and not isinstance(pod, dict):
        return None
    found: dict[str, Any] = {}
    if isinstance(slurm, dict):
        found.update({f"placement.slurm.{name}": slurm.get(name) for name in _ALLOCATION_FIELDS})
        for group in ("gpus", "memory"):
            found.update(_leaves(doc, ("placement", "slurm", group)))
    found.update(_leaves(doc, ("placement", "kubernetes", "resources"), "value"))
    # A job id alone (SLURM_JOB_ID set, nothing allocated stated) is bookkeeping, no allocation.
    return found if any(value not in (None, "", {}, []) for value in found.values()) else None


def allocation_change(a: Doc, b: Doc) -> Iterator[Hit]:
    """What the scheduler allocated, as one finding (it joins the GPU finding it causes)."""
    if not (isinstance(get(a, "placement"), dict) and isinstance(get(b, "placement"), dict)):
        return
    la, lb = _allocation(a), _allocation(b)
    if la == lb:
        return
    if la is None or lb is None:
        where = "A" if la is not None else "B"
        yield Hit(
            "placement.allocation",
            "placement.slurm",
            "allocated" if la is not None else None,
            "allocated" if lb is not None else None,
            title=f"scheduler allocation on side {where} only",
        )
        return
    changed = [
        (path, la.get(path), lb.get(path))
        for path in dict.fromkeys([*la, *lb])
        if la.get(path) != lb.get(path)
    ]
    shown = ", ".join(f"{path.rsplit('.', 1)[-1]} {va} → {vb}" for path, va, vb in changed[:4])
    more = f" (+{len(changed) - 4} more)" if len(changed) > 4 else ""
    path, va, vb = changed[0]
    yield Hit(
        "placement.allocation",
        path,
        va,
        vb,
        title=f"scheduler allocation changed: {shown}{more}",
        extra=tuple(changed[1:]),
    )


def _threads(doc: Doc, both_torch: bool) -> Any:
    if both_torch:
        return get(doc, "torch.num_threads")
    return get(doc, "placement.cpu.default_threads")


def affinity_threads(a: Doc, b: Doc) -> Iterator[Hit]:
    """The thread count a changed CPU affinity sets: torch's, when both sides record it, else
    the default the affinity and OMP_NUM_THREADS give."""
    ca, cb = get(a, "placement.cpu"), get(b, "placement.cpu")
    if not (isinstance(ca, dict) and isinstance(cb, dict)):
        return
    if (ca.get("cpus"), ca.get("count")) == (cb.get("cpus"), cb.get("count")):
        return
    both_torch = all(isinstance(get(doc, "torch.num_threads"), int) for doc in (a, b))
    ta, tb = _threads(a, both_torch), _threads(b, both_torch)
    if ta is None or tb is None or ta == tb:
        return
    path = "torch.num_threads" if both_torch else "placement.cpu.default_threads"
    yield Hit(
        "env.threads",
        path,
        ta,
        tb,
        title=f"CPU thread count changed with the CPU affinity: {ta} → {tb} threads "
        f"(CPUs {ca.get('cpus')} → {cb.get('cpus')})",
        extra=(
            ("placement.cpu.cpus", ca.get("cpus"), cb.get("cpus")),
            ("placement.cpu.count", ca.get("count"), cb.get("count")),
        ),
        active=True,
    )


PLACEMENT_DERIVED = (image_change, allocation_change, affinity_threads)
