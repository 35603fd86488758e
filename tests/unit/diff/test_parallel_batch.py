"""A data-parallel size that changes the global batch is one finding: the layout, acting
through the batch."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _layout(doc: dict[str, Any], *, world: int, micro: int) -> None:
    parallel = doc["parallel"]
    parallel.update(
        world_size=world,
        dp_size=world,
        local_world_size=world,
        micro_batch_size=micro,
        global_batch=micro * world,
        global_batch_formula=f"micro_batch_size {micro} x dp_size {world} x grad_accum_steps 1",
    )
    parallel["dataloader"]["batch_size"] = micro
    parallel["dataloader"]["sampler"]["num_replicas"] = world


def test_more_ranks_at_the_same_per_rank_batch_is_one_layout_finding() -> None:
    a, b = full_pair()
    _layout(a, world=4, micro=8)
    _layout(b, world=8, micro=8)
    for target in ("bitwise", "close", "conclusion"):
        findings = diff_documents(a, b, target=target).findings
        top = findings[0]
        assert top.rule == "semantics.parallel", (target, [f.rule for f in findings])
        assert top.severity == "critical"  # the global batch's severity: what is optimized
        assert "semantics.global-batch" in top.rules
        assert "global batch 32 → 64" in top.title
        assert all("semantics.global-batch" not in f.rules for f in findings[1:])


def test_a_global_batch_changed_at_the_same_layout_stays_its_own_finding() -> None:
    a, b = full_pair()
    _layout(a, world=8, micro=8)
    _layout(b, world=8, micro=16)
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert rules[0] == "semantics.global-batch"
    assert "semantics.parallel" not in rules
