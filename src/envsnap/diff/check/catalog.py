"""The `envsnap check` rules, as data: what each finding means, how severe it is per target.

Severity tuples are (bitwise, close, conclusion), mapped from the numerics reference entries
cited in `refs` the same way as the diff catalog. A rule's `match` lists the manifest paths its
lint reads. A lint may lower a severity (never raise it) when a fact it needs is unknown: the
finding then says what is unknown, at `info`, instead of guessing.
"""

from __future__ import annotations

from envsnap.diff.rules import Rule

NUM = "envsnap numerics catalog"
RANDOMNESS_MD = "pytorch/pytorch:docs/source/notes/randomness.md"
DATA_DOCS = (
    "https://docs.pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading"
)
CUBLAS_REPRO = "https://docs.nvidia.com/cuda/cublas/ (Results reproducibility)"

CHECK_RULES: tuple[Rule, ...] = (
    Rule(
        id="check.no-seed",
        match=("seeds.master_seed", "seeds.torch_initial_seed"),
        category="randomness",
        severity=("high", "high", "low"),
        title="no seed recorded",
        why="without a recorded seed, initialisation, dropout, shuffling and augmentation "
        "cannot be replayed; a rerun is a different draw.",
        fix="Seed through envsnap.SeedManager(seed).apply() and pass it as "
        "envsnap.capture(seeds=...).",
        refs=(f"{NUM} G2", RANDOMNESS_MD),
    ),
    Rule(
        id="check.pythonhashseed",
        match=("seeds.pythonhashseed", "env.variables.PYTHONHASHSEED"),
        category="randomness",
        severity=("low", "low", "info"),
        title="PYTHONHASHSEED not set",
        why="str hashes are salted per process, so the iteration order of sets of strings "
        "differs between runs; it matters where a pipeline iterates a set.",
        fix="Set PYTHONHASHSEED in the launcher (inside the script is too late), and sort sets "
        "before iterating them.",
        refs=(f"{NUM} G1",),
    ),
    Rule(
        id="check.determinism-warning",
        match=("seeds.warnings",),
        category="randomness",
        severity=("medium", "low", "info"),
        title="a determinism setting may not have taken effect",
        why="the seed manager warned while applying the level (for example CUDA was already "
        "initialised when CUBLAS_WORKSPACE_CONFIG was set).",
        fix="Apply the determinism level before any CUDA work, or set the variables in the "
        "environment before the process starts.",
        refs=(f"{NUM} C4", f"{NUM} rule 9"),
    ),
    Rule(
        id="check.cudnn-benchmark",
        match=("torch.cudnn.benchmark", "seeds.level", "torch.deterministic.algorithms"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="cudnn.benchmark is on although determinism was asked for",
        why="benchmark mode times convolution algorithms and keeps the fastest, which can "
        "differ between runs even on one machine, defeating the deterministic settings.",
        fix="Set torch.backends.cudnn.benchmark = False (the 'deterministic' level does).",
        refs=(f"{NUM} C1", RANDOMNESS_MD),
    ),
    Rule(
        id="check.not-deterministic",
        match=("torch.deterministic.algorithms", "torch.cudnn.deterministic"),
        category="algorithm",
        severity=("high", "info", "info"),
        title="deterministic algorithms are off on CUDA",
        why="atomics-based kernels and autotuning make two runs under identical conditions "
        "differ bitwise.",
        fix="Use envsnap.deterministic(seed) or SeedManager(seed).apply('deterministic').",
        refs=(f"{NUM} C2", f"{NUM} C3", f"{NUM} rule 5"),
    ),
    Rule(
        id="check.probe-nondeterministic",
        match=("probe.devices.*.ops.*.repeat_equal",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="the numerics probe measured nondeterminism",
        why="the probe ran an op twice on the same inputs and got other bits: on this stack "
        "that op family is nondeterministic (atomic adds on a GPU, autotuned kernels), so two "
        "runs under identical conditions differ bitwise wherever the job uses it.",
        fix="Use envsnap.deterministic(seed) (torch.use_deterministic_algorithms, "
        "CUBLAS_WORKSPACE_CONFIG) if bitwise reproduction matters.",
        refs=("docs/probe.md", f"{NUM} C2"),
    ),
    Rule(
        id="check.declared-device",
        match=("precision.device", "precision.params_device", "torch.cuda_available"),
        category="hardware",
        severity=("medium", "medium", "low"),
        title="the job declared a device this capture contradicts",
        why="a diff takes the declared device as where the job's math ran; when torch could not "
        "use that device, the declaration or the environment is wrong, and the comparison "
        "rests on it.",
        fix="Declare the device the job really uses (precision={'device': ...}), or install the "
        "torch build for it.",
        refs=(f"{NUM} A1",),
    ),
    Rule(
        id="check.cublas-workspace",
        match=(
            "torch.deterministic.algorithms",
            "env.variables.CUBLAS_WORKSPACE_CONFIG",
            "seeds.flags.cublas_workspace_config",
        ),
        category="algorithm",
        severity=("medium", "low", "info"),
        title="deterministic algorithms on CUDA without CUBLAS_WORKSPACE_CONFIG",
        why="with several streams cuBLAS may pick different workspaces, which is "
        "nondeterministic; recent torch releases give each stream its own workspace, older "
        "ones raise under deterministic mode.",
        fix="Set CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8) before the process starts.",
        refs=(f"{NUM} C4", CUBLAS_REPRO),
    ),
    Rule(
        id="check.tf32",
        match=("torch.effective.matmul_fp32.tf32", "torch.effective.conv_fp32.tf32"),
        category="precision",
        severity=("high", "low", "info"),
        title="fp32 math runs on TF32 tensor cores",
        why="TF32 keeps 10 mantissa bits; on an Ampere-or-newer GPU fp32 matmuls or "
        "convolutions are rounded differently from IEEE fp32, so results are not bitwise "
        "comparable with any non-TF32 run.",
        fix="torch.backends.cuda.matmul.allow_tf32 = False and torch.backends.cudnn.allow_tf32 "
        "= False (or fp32_precision 'ieee'), and unset NVIDIA_TF32_OVERRIDE=1.",
        refs=(f"{NUM} B1", f"{NUM} B2", f"{NUM} B4"),
    ),
    Rule(
        id="check.dirty-tree",
        match=("code.dirty", "code.diff_bytes"),
        category="code",
        severity=("high", "high", "medium"),
        title="tracked files have uncommitted changes",
        why="the commit id does not describe the code that ran; only the diff digest records "
        "that something else did.",
        fix="Commit (or stash) before the run, or archive the patch next to the manifest.",
        refs=(f"{NUM} rule 1",),
    ),
    Rule(
        id="check.untracked-files",
        match=("code.untracked_count",),
        category="code",
        severity=("medium", "low", "low"),
        title="untracked files in the source tree",
        why="files outside version control may be imported or read by the job, and a checkout "
        "of the commit will not have them.",
        fix="Commit them, or list them in .gitignore when they do not affect the run.",
        refs=(f"{NUM} rule 1",),
    ),
    Rule(
        id="check.data-no-digest",
        match=("data.items.*.root", "parallel.dataloader"),
        category="data",
        severity=("high", "high", "medium"),
        title="data was used but no data digest was recorded",
        why="without a content digest nobody can show the run read the same data; data changes "
        "what is optimised.",
        fix="Pass the data to envsnap.capture(data=...) (paths or dataset objects) so it is "
        "hashed.",
        refs=(f"{NUM} rule 1",),
    ),
    Rule(
        id="check.dataloader-worker-seeding",
        match=(
            "parallel.dataloader.num_workers",
            "parallel.dataloader.generator_seed",
            "parallel.dataloader.worker_init_fn",
        ),
        category="randomness",
        severity=("medium", "medium", "low"),
        title="DataLoader workers without a generator or worker_init_fn",
        why="worker seeds then come from the global torch RNG at iterator creation, so any "
        "change in earlier RNG use changes every worker's augmentation; libraries other than "
        "random, numpy and torch are not reseeded in workers at all.",
        fix="DataLoader(generator=manager.generator(), worker_init_fn=manager.worker_init_fn()).",
        refs=(f"{NUM} G3", DATA_DOCS),
    ),
    Rule(
        id="check.ga-transformers",
        match=("parallel.grad_accum_steps", "packages.installed.transformers.version"),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="gradient accumulation with transformers < 4.46",
        why="before 4.46 the Trainer averaged per-micro-batch mean losses instead of dividing "
        "by the target tokens of the whole accumulation window, which changes the objective.",
        fix="Upgrade transformers to >= 4.46, or normalise the loss by the total target tokens "
        "yourself.",
        refs=(f"{NUM} F2", "https://huggingface.co/blog/gradient_accumulation"),
    ),
    Rule(
        id="check.no-lock-file",
        match=("packages.lock_files",),
        category="stack",
        severity=("medium", "medium", "low"),
        title="no lock file found",
        why="the manifest lists what was installed, but without a lock file the environment "
        "cannot be rebuilt by the package manager, only approximated.",
        fix="Commit a lock file (uv.lock, poetry.lock, requirements.txt with pins, "
        "conda-lock.yml) in the project root.",
        refs=(f"{NUM} J1", f"{NUM} J2"),
    ),
    Rule(
        id="check.section-missing",
        match=("collectors.*",),
        category="environment",
        severity=("low", "low", "low"),
        title="a section was not captured",
        why="what was not captured cannot be checked or compared.",
        fix="See the collector's reason; rerun the capture where that information is available.",
        refs=(),
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in CHECK_RULES}
