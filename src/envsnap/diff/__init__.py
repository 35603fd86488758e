"""The differ: which differences between two manifests can change results, ranked.

Data flow: `changes` (structural, rule-agnostic) -> `rules`/`catalog` (what each change means)
plus `derived` (facts that need both manifests) -> `rank` (severity per target, ordering).
`check/` lints one manifest, `cluster/` compares the ranks of one job, `fleet.py` many runs;
all of them produce a `report.Report`.

The ranking is loaded on first use, so that importing a light submodule (the report model, the
cluster model inside a training job) does not load the whole catalog.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from envsnap.diff.rank import diff_documents
    from envsnap.diff.report import Report, Target
    from envsnap.manifest.model import Manifest

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
    from envsnap.diff.rank import diff_documents

    return diff_documents(
        a.to_document(),
        b.to_document(),
        target=target,
        ignore=ignore,
        label_a=label_a,
        label_b=label_b,
    )


def __getattr__(name: str) -> Any:
    if name == "diff_documents":
        from envsnap.diff.rank import diff_documents

        return diff_documents
    raise AttributeError(f"module 'envsnap.diff' has no attribute {name!r}")
