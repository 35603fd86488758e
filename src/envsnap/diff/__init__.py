"""The differ: which differences between two manifests can change results, ranked.

Data flow: `changes` (structural, rule-agnostic) -> `rules`/`catalog` (what each change means)
plus `derived` (facts that need both manifests) -> `rank` (severity per target, ordering).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from envsnap.diff.rank import diff_documents
from envsnap.report import Report, Target

if TYPE_CHECKING:
    from envsnap.manifest import Manifest

__all__ = ["diff_documents", "diff_manifests"]


def diff_manifests(
    a: Manifest,
    b: Manifest,
    *,
    target: Target = "close",
    ignore: Sequence[str] = (),
    label_a: str | None = None,
    label_b: str | None = None,
) -> Report:
    """Compare two manifests and return every difference, most likely to matter first."""
    return diff_documents(
        a.to_document(),
        b.to_document(),
        target=target,
        ignore=ignore,
        label_a=label_a,
        label_b=label_b,
    )
