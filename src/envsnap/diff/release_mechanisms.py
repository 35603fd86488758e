"""What a version step brings is that step's finding: one cause, one finding.

A release changes results through what it changed: a default it flipped (`flip.*`), a known
bug window it enters or leaves (`bug.*`), and, for Python across 3.3, str hashing salted per
process. Each is reported for the version step it comes from, and the user changed one thing,
the version; so where that step is itself a finding, the mechanisms join it as the ways it acts
("Python interpreter changed: 2.7 → 3.5; through it: str hashing is salted per process on B").
A mechanism that is part of another cause (the TF32 default flip belongs to the TF32 finding)
stays there, and a bug window whose version did not change (the GPU moved into it) stays a
finding of its own.
"""

from __future__ import annotations

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, way_of
from envsnap.diff.grouping import component, group_key

_HASH_DEFAULT = ("randomness.pythonhashseed", "python.hash_randomization")
_PYTHON_VERSION = "python.version"


def _step_of(hit: Hit) -> str | None:
    """The component whose version step a mechanism hit comes from, or None."""
    if hit.consequence_of is not None or RULES_BY_ID[hit.rule].merge is not None:
        return None
    if hit.rule.startswith(("flip.", "bug.")):
        return component(hit.path)
    if (hit.rule, hit.path) == _HASH_DEFAULT and any(p == _PYTHON_VERSION for p, _, _ in hit.extra):
        return _PYTHON_VERSION
    return None


def join_release_mechanisms(hits: list[Hit]) -> list[Hit]:
    """Flips, bug windows and the hash default joined to their version step's finding."""
    steps: dict[str, tuple[str, str]] = {}
    # A rule for any version step before one for a kind of step (the torch release, not its
    # local CUDA tag, which stack.cuda-build reads from the same path).
    for hit in sorted(hits, key=lambda hit: bool(RULES_BY_ID[hit.rule].when)):
        rule = RULES_BY_ID[hit.rule]
        if rule.category == "stack" and not rule.derived and hit.consequence_of is None:
            steps.setdefault(component(hit.path), group_key(hit))
    out: list[Hit] = []
    for hit in hits:
        step = _step_of(hit)
        key = steps.get(step) if step is not None else None
        out.append(way_of(hit, *key) if key else hit)
    return out
