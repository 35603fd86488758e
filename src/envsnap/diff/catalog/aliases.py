"""Former rule ids, so `--ignore` and `--fail-on` settings written for them keep working.

Each entry maps an id that is no longer produced to the id that now covers its cause
(docs/diff.md lists the renames).
"""

from __future__ import annotations

ALIASES: dict[str, str] = {
    # The GPU identity (model, count, SM count, architecture) is one hardware finding; the
    # kernel choice that follows from it is its own consequence.
    "hw.gpu-sku": "hw.gpu",
    "hw.gpu-arch": "hw.gpu-kernels",
}


def canonical(rule: str) -> str:
    """The current id for a rule id or a former one."""
    return ALIASES.get(rule, rule)


def names_of(rule: str) -> tuple[str, ...]:
    """A rule's current id followed by every former id that now maps to it."""
    return (rule, *sorted(old for old, new in ALIASES.items() if new == rule))
