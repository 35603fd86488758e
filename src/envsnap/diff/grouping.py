"""Hits -> findings: one finding per cause, not per path.

A fact seen at several paths (the torch version in `packages`, `cuda_stack` and `torch`) is
one finding; so is every path one mechanism reads (a dirty tree's flag, patch digest and size).
Rules split their hits per component only where components are separate causes (two packages
upgraded are two findings); past `FOLD_AFTER` findings of one kind, the rest fold into one
(`rank.py`). The finding keeps every path and value as evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit
from envsnap.diff.report import BASES, SEVERITY_RANK, TARGETS, Basis, Severity, Target
from envsnap.diff.rules import Rule

# Paths that name the torch release outside `packages.installed.torch`.
_TORCH_PATHS = frozenset(
    {
        "cuda_stack.torch_version",
        "cuda_stack.torch_git_version",
        "torch.version",
        "torch.git_version",
    }
)
_COMPONENT = (
    (re.compile(r"packages\.installed\.([^.\[]+|\[\"[^\"]+\"\])"), 1),
    (re.compile(r"cuda_stack\.libraries\.([^.\[]+)"), 1),
    (re.compile(r"env\.variables\.([^.\[]+)"), 1),
)


def component(path: str) -> str:
    """The thing a path is about: a package, a CUDA library, a variable, or the path itself."""
    if path in _TORCH_PATHS:
        return "torch"
    if path == "torch.cudnn.version":
        return "cudnn"
    if path == "torch.nccl_version":
        return "nccl"
    for pattern, group in _COMPONENT:
        match = pattern.match(path)
        if match:
            return match.group(group).strip('["]')
    return path


# Findings of one cause kind (one rule, or rules merged into one fact) past this many fold
# into one finding (rank.py): a diff of two environments that share nothing lists 200k
# packages in one finding, not 200k rows. No pair of the field corpus has more than two.
FOLD_AFTER = 25


@dataclass
class Group:
    """The hits behind one finding, in the order they were found; `folded` counts the
    findings it stands for when it is the folded tail of a common cause."""

    key: tuple[str, str]
    hits: list[Hit] = field(default_factory=list)
    folded: int = 0

    def rules(self) -> list[Rule]:
        return [RULES_BY_ID[hit.rule] for hit in self.hits]


def group_key(hit: Hit) -> tuple[str, str]:
    """The finding a hit belongs to: (cause name, component or path; "" for the whole cause).
    A consequence joins its cause's finding, at the component it names."""
    if hit.consequence_of is not None:
        return hit.consequence_of, hit.component or ""
    rule = RULES_BY_ID[hit.rule]
    name = rule.merge or rule.id
    if rule.per == "path":
        return name, hit.path
    if rule.per == "component":
        return name, hit.component or component(hit.path)
    return name, hit.component or ""


def group_hits(hits: Iterable[Hit]) -> list[Group]:
    """Hits gathered into findings, in order of first appearance."""
    groups: dict[tuple[str, str], Group] = {}
    for hit in hits:
        key = group_key(hit)
        groups.setdefault(key, Group(key)).hits.append(hit)
    return list(groups.values())


def hit_severity(hit: Hit, target: Target) -> Severity:
    return (hit.severity or RULES_BY_ID[hit.rule].severity)[TARGETS.index(target)]


def lead_hit(group: Group, target: Target) -> Hit:
    """The hit whose rule names the finding: the rule the merged cause is named after (the GPU
    change, not the kernels it brings; the finding's severity is still its most severe hit's),
    then the cause itself before a way it acts (the toolkit, not a library it ships), then the
    most severe, then the most specific, then the setting that changed (a path, untitled)
    before a derived summary; the first found breaks ties."""
    return max(
        group.hits,
        key=lambda hit: (
            group.key[0] == hit.rule,
            hit.consequence_of is None,
            SEVERITY_RANK[hit_severity(hit, target)],
            RULES_BY_ID[hit.rule].specificity,
            not RULES_BY_ID[hit.rule].derived,
            hit.title is None,
        ),
    )


def title_of(group: Group, lead: Hit) -> str | None:
    """The lead's own title, else the title of another hit of the same rule."""
    if lead.title is not None:
        return lead.title
    return next((h.title for h in group.hits if h.rule == lead.rule and h.title), None)


@cache
def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern))


def primary_hit(group: Group, lead: Hit) -> Hit:
    """The hit that titles the finding: the lead rule's first `primary` glob that matches a
    hit of the cause itself (not a way it acts at the same path), else the lead itself."""
    own = [hit for hit in group.hits if hit.consequence_of is None] or group.hits
    for pattern in RULES_BY_ID[lead.rule].primary:
        for hit in own:
            if _glob(pattern).fullmatch(hit.path):
                return hit
    return lead


def is_primary(hit: Hit) -> bool:
    """Whether the hit is at one of its rule's `primary` paths."""
    return any(_glob(pattern).fullmatch(hit.path) for pattern in RULES_BY_ID[hit.rule].primary)


def evidence(group: Group, first: Hit) -> list[tuple[str, Any, Any, str | None]]:
    """Every distinct (path, a, b, inferred), the titling hit first; `inferred` is what the
    hits that saw the path inferred from it (None: stated by all of them): a GPU's SM count is
    stated as the GPU's, and what the random streams it lays out rest on is inferred."""
    at: dict[str, int] = {}
    out: list[tuple[str, Any, Any, str | None]] = []
    for hit in [first, *group.hits]:
        for path, a, b in ((hit.path, hit.a, hit.b), *hit.extra):
            if path not in at:
                at[path] = len(out)
                out.append((path, a, b, hit.inferred))
                continue
            seen_path, seen_a, seen_b, notes = out[at[path]]
            if hit.inferred and hit.inferred not in (notes or ""):
                joined = f"{notes}; {hit.inferred}" if notes else hit.inferred
                out[at[path]] = (seen_path, seen_a, seen_b, joined)
    return out


def hit_basis(hit: Hit) -> Basis:
    """What one hit rests on: its own basis, else inferred when it says from what, else stated."""
    return hit.basis or ("inferred" if hit.inferred else "stated")


def group_basis(hits: Sequence[Hit]) -> Basis:
    """What a finding rests on: the firmest of its hits (a stated fact beside an inferred one
    makes the finding stated; a note beside a difference does not make it a note)."""
    return min((hit_basis(hit) for hit in hits), key=BASES.index)


def is_active(hits: Sequence[Hit]) -> bool:
    """True when any hit shows its mechanism acting on the run."""
    return any(
        hit.active if hit.active is not None else not RULES_BY_ID[hit.rule].latent for hit in hits
    )
