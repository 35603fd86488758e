"""Rules for seeds and random state."""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV, NUM, RANDOMNESS_MD
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="randomness.seed",
        match=(
            "seeds.{master_seed,rank,torch_initial_seed,seeded}",
            "seeds.{derived,cuda_initial_seeds,state_digests}.*",
        ),
        category="randomness",
        severity=("high", "high", "low"),
        title="seed or RNG state changed",
        why="seeds drive initialisation, dropout, sampling and augmentation; a different seed "
        "is a different sample of the training distribution.",
        fix="Use the same master seed, or compare distributions over several seeds.",
        refs=(f"{NUM} G2", RANDOMNESS_MD),
        primary=("seeds.master_seed", "seeds.rank"),
    ),
    Rule(
        id="randomness.pythonhashseed",
        match=(f"{ENV}.PYTHONHASHSEED", "seeds.pythonhashseed", "python.hash_randomization"),
        category="randomness",
        severity=("high", "high", "low"),
        title="PYTHONHASHSEED changed",
        why="str hashing is salted per process unless PYTHONHASHSEED is fixed, which changes "
        "set iteration order in data pipelines.",
        fix="Set PYTHONHASHSEED in the launcher (too late inside the script); sort sets before "
        "iterating.",
        refs=(f"{NUM} G1", "NVIDIA/framework-reproducibility doc/d9m/README.md"),
        specificity=1,
        primary=(f"{ENV}.PYTHONHASHSEED", "seeds.pythonhashseed"),
    ),
    Rule(
        id="randomness.cuda-rng-sm-count",
        match=("gpu.devices.*.sm_count", "gpu.devices.*.name", "seeds.master_seed"),
        category="randomness",
        severity=("high", "high", "low"),
        title="seeded CUDA random streams differ: SM count differs",
        why="CUDA random kernels (randn, dropout masks) size their launch grid by the SM count "
        "and derive each thread's Philox offset from it, so the same seed draws other numbers "
        "on GPUs with other SM counts.",
        fix="Draw random tensors on the CPU generator and move them to the GPU, or compare "
        "across seeds; for bitwise comparisons use GPUs with the same SM count.",
        refs=("pytorch/pytorch#143086", "pytorch/pytorch#97097", RANDOMNESS_MD),
        derived=True,
        specificity=1,
        gpu_only=True,
    ),
)
