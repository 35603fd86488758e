"""Risks both sides share: a source of randomness neither side pins (basis `shared`).

Nothing recorded differs about them, so they never outrank a difference; they name what both
runs left random when no difference explains a disagreement. Severity is medium for bitwise and
low otherwise, so a real difference above low always reads first. The hits come from
`diff/shared_risks.py`.
"""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV, NUM, RANDOMNESS_MD
from envsnap.diff.report import Severity
from envsnap.diff.rules import Rule

# A shared risk's severity per target (bitwise, close, conclusion).
SHARED: tuple[Severity, Severity, Severity] = ("medium", "low", "low")
DATALOADER_RANDOMNESS = (
    "https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading"
)

RULES: tuple[Rule, ...] = (
    Rule(
        id="shared.hash-seed",
        match=(f"{ENV}.PYTHONHASHSEED", "seeds.pythonhashseed", "python.hash_randomization"),
        category="randomness",
        severity=SHARED,
        title="both sides leave str hashing random: PYTHONHASHSEED unset",
        why="without a fixed PYTHONHASHSEED, str and bytes hashes are salted per process, so the "
        "iteration order of any set of strings (a vocabulary, a file list, a split built from a "
        "set) can differ between the two runs even when nothing recorded differs.",
        fix="Set PYTHONHASHSEED (0 or any fixed integer) in the launcher of both runs; setting it "
        "inside the script is too late. Sort sets before iterating them.",
        refs=(
            f"{NUM} G1",
            "https://docs.python.org/3/using/cmdline.html#envvar-PYTHONHASHSEED",
        ),
        derived=True,
    ),
    Rule(
        id="shared.dataloader-workers",
        match=(
            "parallel.dataloader.{num_workers,generator_seed,worker_init_fn}",
            "seeds.{master_seed,seeded}",
        ),
        category="randomness",
        severity=SHARED,
        title="both sides leave DataLoader worker seeds random",
        why="each worker's seeds derive from a base seed drawn from the main process's torch RNG "
        "unless the loader gets a generator; with the torch RNG unseeded, that base seed and "
        "every worker's augmentation draws change from run to run.",
        fix="Pass a seeded generator (and a worker_init_fn that seeds every other library) to the "
        "DataLoader on both sides, or seed torch before the loader is built.",
        refs=(f"{NUM} G3", DATALOADER_RANDOMNESS, RANDOMNESS_MD),
        derived=True,
        # With no seed at all, the workers' seeds are that risk's consequence: one finding.
        merge="unseeded",
    ),
    Rule(
        id="shared.no-seed",
        match=("seeds.{master_seed,seeded,torch_initial_seed}",),
        category="randomness",
        severity=SHARED,
        title="both sides leave the random seeds random: no seed recorded on either side",
        why="initialisation, dropout, sampling and augmentation draw from generators that start "
        "from a fresh seed in each process unless the job seeds them (python's random, numpy's "
        "global RNG and torch's default generator), so two runs differ however alike they are.",
        fix="Seed python, numpy and torch from one recorded master seed on both sides "
        "(envsnap.capture(seeds=SeedManager(...)), or random.seed, np.random.seed and "
        "torch.manual_seed), and keep it in the manifest.",
        refs=(f"{NUM} G2", RANDOMNESS_MD),
        derived=True,
        merge="unseeded",
    ),
    Rule(
        id="shared.nondeterministic",
        match=("torch.deterministic.algorithms", "torch.cudnn.{deterministic,benchmark}"),
        category="randomness",
        severity=SHARED,
        title="both sides leave kernel choice and summation order random: nondeterministic "
        "algorithms allowed",
        why="cudnn.benchmark picks kernels by timing, and atomics-based kernels (scatter, "
        "index_add, many backward passes) sum in arrival order, so on a GPU even identical "
        "conditions differ bitwise from run to run and drift apart over training.",
        fix="Run both sides with torch.use_deterministic_algorithms(True), "
        "cudnn.deterministic=True, cudnn.benchmark=False and CUBLAS_WORKSPACE_CONFIG=:4096:8 "
        "set in the launcher.",
        refs=(f"{NUM} C1", f"{NUM} C2", f"{NUM} C3", RANDOMNESS_MD),
        derived=True,
    ),
)
