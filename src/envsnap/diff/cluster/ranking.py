"""The one place where cluster and fleet code ask the differ to compare two manifests."""

from __future__ import annotations

from typing import Any

from envsnap.diff.report import Finding, Target


def relevant_findings(
    doc_a: dict[str, Any], doc_b: dict[str, Any], target: Target, *, per_rank_seeds: bool
) -> list[Finding]:
    """The differ's ranked findings between two manifest documents, without noise and
    without what is expected to differ from rank to rank.

    Same changes, same rules (derived ones included), same severities as `envsnap diff`.
    """
    from envsnap.diff.changes import compute_changes
    from envsnap.diff.cluster.paths import parse_dotted, value_key
    from envsnap.diff.cluster.relevance import is_comparable
    from envsnap.diff.derived import Hit, derived_hits
    from envsnap.diff.gates import apply_gates
    from envsnap.diff.rank import build_report, hits_for, without_covered

    def relevant(path: tuple[str, ...]) -> bool:
        return is_comparable(path, per_rank_seeds=per_rank_seeds)

    derived: list[Hit] = []
    for hit in derived_hits(doc_a, doc_b):
        # A derived hit with equal sides states a shared condition ("neither run was
        # deterministic"), not a way in which these two differ.
        if value_key(hit.a) == value_key(hit.b):
            continue
        try:
            path = parse_dotted(hit.path)
        except ValueError:
            path = (hit.path,)
        if relevant(path):
            derived.append(hit)
    changes = [change for change in compute_changes(doc_a, doc_b) if relevant(change.path)]
    hits = without_covered(hits_for(changes, target), derived)
    hits = apply_gates([*hits, *derived], doc_a, doc_b)
    return [f for f in build_report(hits, target=target).findings if f.category != "noise"]
