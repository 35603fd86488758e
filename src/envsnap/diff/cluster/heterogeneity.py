"""Heterogeneity: the result-relevant ways in which the ranks of one job disagree.

Each rank is compared with the representative by the differ (same changes, same rules, same
severities), leaving out noise and what is expected to differ per rank. Identical deviations on
several ranks become one finding that names all of them and their hosts. One check is specific
to clusters: seeds that are equal across ranks although per-rank seeds were expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from envsnap.diff.cluster.model import HeterogeneityFinding
from envsnap.diff.cluster.paths import value_key
from envsnap.diff.cluster.relevance import per_rank_seeds_declared
from envsnap.diff.derived import Hit
from envsnap.diff.findings import make_finding
from envsnap.diff.report import Finding, Target, numbered, severity_key
from envsnap.diff.rules import Rule

SEEDS_EQUAL = Rule(
    id="cluster.seeds-equal-across-ranks",
    match=("seeds.derived", "seeds.torch_initial_seed"),
    category="randomness",
    severity=("high", "medium", "medium"),
    title="seeds equal across ranks where per-rank seeds were expected",
    why="The job mixes the rank into its seeds, yet these ranks drew the same seeds: they "
    "share dropout masks, augmentation and any per-rank sampling stream, so the run is not the "
    "one that was configured and its effective randomness is smaller.",
    fix="Derive each rank's seeds from the master seed and its own rank "
    "(SeedManager(master_seed, rank=dist.get_rank())) and seed after init_process_group.",
    refs=("numerics.md G2", "numerics.md E6"),
    derived=True,
)


def _ranks_text(ranks: list[int], hosts: Mapping[int, str | None]) -> str:
    names = sorted({hosts.get(rank) or "?" for rank in ranks})
    label = "rank" if len(ranks) == 1 else "ranks"
    return f"{label} {', '.join(map(str, ranks))} on {', '.join(names)}"


def _seed_signature(seeds: Any) -> Any:
    if not isinstance(seeds, dict):
        return None
    if seeds.get("derived"):
        return ("seeds.derived", value_key(seeds["derived"]))
    if seeds.get("torch_initial_seed") is not None:
        return ("seeds.torch_initial_seed", value_key(seeds["torch_initial_seed"]))
    return None


def _equal_seed_findings(
    documents: Mapping[int, dict[str, Any]], hosts: Mapping[int, str | None], target: Target
) -> list[HeterogeneityFinding]:
    groups: dict[Any, list[int]] = {}
    for rank, document in sorted(documents.items()):
        signature = _seed_signature(document.get("seeds"))
        if signature is not None:
            groups.setdefault(signature, []).append(rank)
    findings: list[HeterogeneityFinding] = []
    for (path, _), ranks in groups.items():
        if len(ranks) < 2:
            continue
        seeds = documents[ranks[0]]["seeds"]
        value = seeds["derived"] if path == "seeds.derived" else seeds["torch_initial_seed"]
        findings.append(
            _make(SEEDS_EQUAL, target, path, value, value, ranks, hosts, SEEDS_EQUAL.title)
        )
    return findings


def _make(
    rule: Rule,
    target: Target,
    path: str,
    a: Any,
    b: Any,
    ranks: list[int],
    hosts: Mapping[int, str | None],
    title: str,
) -> HeterogeneityFinding:
    finding = make_finding(rule, Hit(rule.id, path, a, b), target)
    return _on_ranks(finding, ranks, hosts, title)


def _on_ranks(
    finding: Finding, ranks: list[int], hosts: Mapping[int, str | None], title: str
) -> HeterogeneityFinding:
    """A finding extended with the ranks it concerns and their hosts."""
    return HeterogeneityFinding(
        **{
            **finding.model_dump(),
            "title": f"{title}: {_ranks_text(ranks, hosts)}",
            "ranks": ranks,
            "hosts": sorted({hosts.get(rank) or "?" for rank in ranks}),
        }
    )


def heterogeneity_findings(
    representative: int,
    documents: Mapping[int, dict[str, Any]],
    hosts: Mapping[int, str | None],
    *,
    target: Target,
    per_rank_seeds: bool | None = None,
) -> list[HeterogeneityFinding]:
    """Findings for every result-relevant disagreement between ranks, most severe first.

    `per_rank_seeds=None` infers the expectation from the manifests (a rank declared in the
    seeds section); True or False states it.
    """
    from envsnap.diff.cluster.ranking import relevant_findings

    expected = (
        per_rank_seeds_declared(list(documents.values()))
        if per_rank_seeds is None
        else per_rank_seeds
    )
    base = documents[representative]
    grouped: dict[tuple[str, str, Any], tuple[Finding, list[int]]] = {}
    for rank, document in sorted(documents.items()):
        if rank == representative:
            continue
        for finding in relevant_findings(base, document, target, per_rank_seeds=expected):
            key = (finding.rule, finding.path, value_key(finding.b))
            grouped.setdefault(key, (finding, []))[1].append(rank)

    findings = [
        _on_ranks(finding, ranks, hosts, finding.title) for finding, ranks in grouped.values()
    ]
    if expected:
        findings.extend(_equal_seed_findings(documents, hosts, target))
    findings.sort(key=lambda f: (*severity_key(f), f.path, f.ranks))
    return numbered(findings)
