"""A changed data-parallel size that changes the global batch is one cause: one finding.

The global batch is micro-batch x data-parallel size x accumulation steps (`batch_layout`).
When the data-parallel size differs between the sides and the global batch differs with it,
the layout change is what the user changed, and the global batch is how it acts on training
(the learning-rate scale, the steps per epoch), as the padding a DistributedSampler adds is how
it acts on evaluation. The global batch then joins the parallel layout's finding, which
takes its severity; a global batch changed at an equal data-parallel size stays its own.
"""

from __future__ import annotations

from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, batch_layout, way_of

Doc = dict[str, Any]
LAYOUT_CAUSE = "semantics.parallel"
BATCH = "semantics.global-batch"
BATCH_CAUSE = RULES_BY_ID[BATCH].merge  # the global batch and the fields it is computed from
_DP = 1  # the data-parallel size's place in batch_layout's layout


def _dp_sizes_differ(a: Doc, b: Doc) -> bool:
    la, lb = batch_layout(a), batch_layout(b)
    if la is None or lb is None:
        return False
    dp_a, dp_b = la[1][_DP], lb[1][_DP]
    return dp_a is not None and dp_b is not None and dp_a != dp_b


def join_layout_batch(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """The global batch (and the batch fields it is computed from) joined to the parallel
    layout's finding where the data-parallel size changed it; unchanged otherwise."""
    batch = next((hit for hit in hits if hit.rule == BATCH), None)
    if batch is None or not _dp_sizes_differ(a, b):
        return hits
    if not any(hit.rule == LAYOUT_CAUSE for hit in hits):
        return hits
    title = f"global batch {batch.a} → {batch.b}"
    return [
        way_of(hit, LAYOUT_CAUSE, title=title)
        if RULES_BY_ID[hit.rule].merge == BATCH_CAUSE
        else hit
        for hit in hits
    ]
