"""Which manifest paths are expected to differ between the ranks of one job.

Noise (timestamps, pids, durations, hostnames...) is the differ's notion and is taken from it.
What is added here is specific to comparing ranks with each other: a rank's own identity (its
rank number in the launcher variables and the parallel section) and, when the job declared
per-rank seeding, the seeds derived from that rank.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from envsnap.diff.cluster.paths import Path

# Variables that launchers (torchrun, SLURM, Open MPI, MPICH) set differently on every rank.
RANK_VARIABLES: frozenset[str] = frozenset(
    {
        "RANK",
        "LOCAL_RANK",
        "GROUP_RANK",
        "ROLE_RANK",
        "NODE_RANK",
        "SLURM_PROCID",
        "SLURM_LOCALID",
        "SLURM_NODEID",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "PMI_RANK",
    }
)
# Fields that name the capturing rank itself.
RANK_FIELDS: frozenset[Path] = frozenset(
    {
        ("parallel", "rank"),
        ("parallel", "local_rank"),
        ("parallel", "dataloader", "sampler", "rank"),
        ("seeds", "rank"),
        # Tasks of one node are bound to different CPUs; how many and on how many NUMA nodes
        # (placement.cpu.count, numa_nodes) is still compared.
        ("placement", "cpu", "cpus"),
        ("placement", "cpu", "numa_cpus"),
    }
)
# Seed fields that a per-rank derivation makes differ on purpose.
PER_RANK_SEED_SECTIONS: frozenset[str] = frozenset(
    {"derived", "torch_initial_seed", "cuda_initial_seeds", "state_digests"}
)


def per_rank_seeds_declared(documents: list[dict[str, Any]]) -> bool:
    """True when any rank declared a rank mixed into its seeds (SeedManager(rank=...))."""
    return any(
        isinstance(doc.get("seeds"), dict) and doc["seeds"].get("rank") is not None
        for doc in documents
    )


def is_rank_specific(path: Path, *, per_rank_seeds: bool) -> bool:
    """True for paths whose values are expected to differ from rank to rank."""
    if len(path) == 3 and path[:2] == ("env", "variables") and path[2] in RANK_VARIABLES:
        return True
    if any(path[: len(field)] == field for field in RANK_FIELDS):
        return True
    return (
        per_rank_seeds
        and len(path) >= 2
        and path[0] == "seeds"
        and (path[1] in PER_RANK_SEED_SECTIONS)
    )


@cache
def is_noise(path: Path) -> bool:
    """True when the differ's catalog ranks a change at `path` as noise.

    The digest is bookkeeping too (the differ skips it before matching rules). Cached: a fleet
    asks about the same few thousand paths for every manifest.
    """
    from envsnap.diff.changes import Change
    from envsnap.diff.rank import INDEX

    if path == ("digest",):
        return True
    rule = INDEX.most_severe(INDEX.matching(Change(path, "changed")), "close")
    return rule is not None and rule.category == "noise"


@cache
def is_comparable(path: Path, *, per_rank_seeds: bool) -> bool:
    """True for result-relevant paths: neither noise nor expected to differ per rank."""
    return not is_noise(path) and not is_rank_specific(path, per_rank_seeds=per_rank_seeds)
