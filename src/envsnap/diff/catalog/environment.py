"""Rules for environment variables that change numerics or scheduling."""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV, NUM
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="env.threads",
        match=(
            "torch.{num_threads,num_interop_threads}",
            f"{ENV}.{{OMP_NUM_THREADS,MKL_NUM_THREADS,OPENBLAS_NUM_THREADS}}",
            f"{ENV}.{{OMP_DYNAMIC,MKL_DYNAMIC}}",
            "system.cpu.{logical_cores,physical_cores,usable_cores}",
            "system.container.cpu_limit",
        ),
        category="environment",
        severity=("high", "low", "low"),
        title="CPU thread count changed",
        why="parallel CPU reductions split work by thread count, so summation order changes "
        "(nn.Linear differs at ~6e-8 between 1 and 6 threads).",
        fix="Pin OMP/MKL thread counts and disable dynamic threading.",
        refs=(f"{NUM} H1", "pytorch/pytorch#2201", "pytorch/pytorch#88718"),
    ),
    Rule(
        id="env.framework-numerics",
        # TensorFlow's names are captured by name (config.DEFAULT_ENV_NAMES); MXNet's and JAX's
        # by prefix. Locations and log levels among them are noise.env.
        match=(
            f"{ENV}.TF_{{DETERMINISTIC_OPS,CUDNN_DETERMINISTIC,CUDNN_USE_AUTOTUNE}}",
            f"{ENV}.TF_{{ENABLE_ONEDNN_OPTS,XLA_FLAGS,NUM_INTRAOP_THREADS,NUM_INTEROP_THREADS}}",
            f"{ENV}.TF_ENABLE_AUTO_MIXED_PRECISION*",
            f"{ENV}.XLA_FLAGS",
            f"{ENV}.MXNET_*",
            f"{ENV}.JAX_{{ENABLE_X64,DEFAULT_MATMUL_PRECISION,DEFAULT_DTYPE_BITS}}",
            f"{ENV}.JAX_{{THREEFRY_PARTITIONABLE,DEFAULT_PRNG_IMPL}}",
        ),
        category="environment",
        severity=("high", "medium", "low"),
        title="another framework's numerics setting changed",
        why="TensorFlow, XLA, MXNet and JAX read these at start-up: deterministic kernels, "
        "cuDNN autotuning, oneDNN rewrites, 64-bit or reduced-precision matmuls, the PRNG "
        "layout. Any part of the job computed by that framework follows them.",
        fix="Pin them in the launcher next to torch's own settings, or unset them on both sides.",
        refs=(
            "https://github.com/tensorflow/tensorflow/releases/tag/v2.8.0",
            "https://mxnet.apache.org/api/faq/env_var",
            "https://docs.jax.dev/en/latest/default_dtypes.html",
            "https://docs.jax.dev/en/latest/_autosummary/jax.default_matmul_precision.html",
        ),
        per="component",
    ),
    Rule(
        id="env.os",
        match=("system.{os,os_release,kernel,libc}",),
        category="environment",
        severity=("low", "low", "low"),
        title="operating system changed",
        why="the OS rarely changes arithmetic; libc's math library can change CPU results in "
        "the last bits.",
        fix="Use the same container image on both sides.",
        refs=(f"{NUM} A3",),
    ),
    Rule(
        id="env.os-runtime",
        match=("system.os", "packages.installed.numpy.version"),
        category="stack",
        severity=("high", "medium", "low"),
        title="another OS family: another C runtime and other builds of compiled packages",
        why="libm, the order qsort leaves equal keys in and the order directories list differ "
        "between Linux, macOS and Windows; the C long (numpy's default integer before 2.0) is "
        "32-bit on Windows; numpy 2.x wheels link Accelerate on macOS 14+, OpenBLAS elsewhere.",
        fix="Compare runs on the same OS family; sort file listings, use stable sorts and "
        "explicit integer dtypes.",
        refs=("numpy/numpy#9464", "numpy/numpy#17640", "numpy/numpy#24961"),
        derived=True,
        specificity=1,
    ),
    Rule(
        id="code.commit",
        match=("code.commit", "code.submodules.**"),
        category="code",
        severity=("high", "high", "medium"),
        title="code commit changed",
        why="different code can change anything.",
        fix="Compare runs of the same commit, or review the diff between the commits.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.dirty",
        match=("code.{dirty,diff_sha256,diff_bytes,patch}",),
        category="code",
        severity=("high", "high", "medium"),
        title="uncommitted changes differ",
        why="with a dirty tree the commit alone no longer identifies the code that ran.",
        fix="Commit before running, or attach the patch (diff_sha256) to the run record.",
        refs=(f"{NUM} J2",),
        primary=("code.dirty",),
    ),
    Rule(
        id="code.untracked",
        match=("code.{untracked_count,untracked_digest,untracked_python}",),
        category="code",
        # Lower than tracked edits: untracked files change results only when the job reads or
        # imports them, and most are logs, outputs and notes.
        severity=("medium", "low", "low"),
        title="untracked files differ",
        why="files outside version control change results only if the job reads or imports "
        "them; a checkout of the commit will not have them.",
        fix="Commit the files the job uses; list outputs and scratch files in .gitignore.",
        refs=(f"{NUM} J2",),
        primary=("code.untracked_count",),
    ),
    Rule(
        id="code.argv",
        match=("run.argv",),
        derived=True,
        category="code",
        severity=("high", "high", "medium"),
        title="command line changed",
        why="the training command line often carries hyperparameters and data paths (an "
        "`envsnap capture` command line is bookkeeping and is not reported).",
        fix="Compare runs launched with the same arguments.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.extra",
        match=("extra.**",),
        category="code",
        severity=("medium", "medium", "low"),
        title="job-attached value changed",
        why="values the job attached to the manifest are often configuration.",
        fix="Check whether the value feeds the training run.",
        refs=(f"{NUM} J2",),
        per="path",
    ),
    Rule(
        id="code.branch",
        match=("code.{branch,detached}", "code.remotes.**", "code.remotes"),
        category="code",
        severity=("info", "info", "info"),
        title="branch or remote changed",
        why="the branch name and remotes do not identify code; the commit does.",
        fix="None needed.",
        refs=(f"{NUM} J2",),
    ),
)
