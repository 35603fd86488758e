"""A changed GPU acts on a run in several ways at once: one cause, so one finding.

When the GPU changed (`hw.gpu`), the differences that follow from the GPU alone join its
finding as the ways it acts, each named in its title:

- the seeded CUDA random streams, laid out by the SM count (`randomness.cuda-rng-sm-count`);
- the precision features the GPU has or lacks: bf16, FP8, flash attention
  (`precision.capabilities`);
- TF32 on one GPU only (`precision.tf32-available`), and so fp32 math run as TF32 on one
  side only while both sides' settings allow it (`precision.tf32-effective`), or as TF32 on two
  architectures (`precision.tf32-arch`).

A TF32 difference the settings make (a flag, an override variable, a release default) is a
cause of its own and keeps its own finding. Whichever of these ways acted on a job depends on
what the job did (seeded CUDA sampling, fp32 convolutions), which a record often does not say;
the GPU finding names them all and takes the severity of the strongest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit
from envsnap.diff.device import job_device, tf32_allowed
from envsnap.diff.grouping import hit_severity
from envsnap.diff.ordering import EFFECT
from envsnap.diff.report import SEVERITY_RANK, Target

Doc = dict[str, Any]
GPU_CAUSE = "hw.gpu"
# Mechanisms that exist only through the GPU's own properties.
_OF_THE_GPU = frozenset(
    {
        "randomness.cuda-rng-sm-count",
        "precision.capabilities",
        "precision.tf32-available",
        "precision.tf32-arch",
    }
)
_EFFECTIVE = "torch.effective."


def join_gpu_consequences(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """The hits that follow from a GPU change, marked as ways the GPU finding acts."""
    if not any(hit.rule == GPU_CAUSE for hit in hits):
        return hits
    return [
        replace(hit, consequence_of=GPU_CAUSE) if _follows_from_the_gpu(hit, a, b) else hit
        for hit in hits
    ]


def _follows_from_the_gpu(hit: Hit, a: Doc, b: Doc) -> bool:
    if hit.rule in _OF_THE_GPU:
        return True
    if hit.rule != "precision.tf32-effective" or not hit.path.startswith(_EFFECTIVE):
        return False
    family = hit.path[len(_EFFECTIVE) :].split("_", 1)[0]  # torch.effective.conv_fp32.tf32
    # The same device type, and settings that allow TF32 alike: only the GPU tells them apart.
    return job_device(a) == job_device(b) and tf32_allowed(a, family) == tf32_allowed(b, family)


def through_it(hits: Sequence[Hit], lead: Hit, target: Target) -> str:
    """'; through it: ...', naming the ways the cause acts that joined its finding (those above
    info for `target`): the most severe first, then the larger effect on the target (TF32
    before random streams for close, the other way round for bitwise); empty when none did."""
    joined = [
        hit
        for hit in hits
        if hit.consequence_of is not None
        and hit.rule != lead.rule
        and hit_severity(hit, target) != "info"
    ]
    if any(hit.rule == "precision.tf32-effective" for hit in joined):
        # "TF32 on A only" says that the GPU of B has none.
        joined = [hit for hit in joined if hit.rule != "precision.tf32-available"]
    joined.sort(
        key=lambda hit: (
            -SEVERITY_RANK[hit_severity(hit, target)],
            -EFFECT[target][RULES_BY_ID[hit.rule].category],
        )
    )
    titles = [_title(hit, joined) for hit in joined]
    unique = [title for title in dict.fromkeys(titles) if title]
    return f"; through it: {'; '.join(unique)}" if unique else ""


def _title(hit: Hit, joined: Sequence[Hit]) -> str:
    if hit.rule != "precision.capabilities":
        return hit.title or RULES_BY_ID[hit.rule].title
    # Every capability in one phrase: "bf16, flash_sdpa on A only".
    if hit is not next(h for h in joined if h.rule == hit.rule):
        return ""
    per_side: dict[str, list[str]] = {"A": [], "B": []}
    for other in joined:
        if other.rule == hit.rule and {other.a, other.b} == {True, False}:
            per_side["A" if other.a is True else "B"].append(other.path.rsplit(".", 1)[-1])
    return "; ".join(
        f"{', '.join(names)} on {side} only" for side, names in per_side.items() if names
    )
