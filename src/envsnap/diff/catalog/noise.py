"""Rules for differences that never change results (timestamps, hosts, paths)."""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV
from envsnap.diff.rules import Rule

# Developer tools that run beside a training job, never inside it: linters, formatters, type
# checkers, test runners, notebooks, debuggers and hook managers. collect_env's pip filter
# lists mypy and flake8 in every report (torch/utils/collect_env.py), so an unrelated bump of
# theirs is in most imported pairs.
DEV_TOOLS = (
    "mypy",
    "mypy-extensions",
    "flake8",
    "black",
    "ruff",
    "pylint",
    "isort",
    "pytest",
    "pytest-*",
    "pre-commit",
    "ipython",
    "ipykernel",
    "jupyter*",
    "notebook",
    "debugpy",
)

# Packages a job imports around its math, never in it: progress bars and terminal output,
# command-line parsing, HTTP clients and certificates, installers, file locks, type stubs and
# process inspection. The noise reference lists their bumps among what two real environments
# differ in while computing the same results; torch itself imports tqdm, so a tqdm bump shows
# as imported in every torch job. fsspec is left out: it decides which data files a glob
# matches (datasets reads through it).
TOOL_PACKAGES = (
    "tqdm",
    "rich",
    "click",
    "colorama",
    "requests",
    "urllib3",
    "certifi",
    "idna",
    "charset-normalizer",
    "pip",
    "setuptools",
    "wheel",
    "packaging",
    "filelock",
    "typing-extensions",
    "typing_extensions",
    "psutil",
)

RULES: tuple[Rule, ...] = (
    Rule(
        id="noise.dev-tool",
        match=tuple(f"packages.installed.{name}.**" for name in DEV_TOOLS)
        + tuple(f"packages.installed.{name}" for name in DEV_TOOLS),
        category="noise",
        severity=("info", "info", "info"),
        title="developer tool changed",
        why="linters, formatters, type checkers, test runners and notebook tooling run beside "
        "the job, not in it: they cannot change what it computes.",
        fix="None needed.",
        refs=(),
        per="component",
    ),
    Rule(
        id="noise.tool-package",
        match=tuple(f"packages.installed.{name}.version" for name in TOOL_PACKAGES)
        + tuple(f"packages.installed.{name}" for name in TOOL_PACKAGES),
        category="noise",
        severity=("info", "info", "info"),
        title="package that does no arithmetic changed",
        why="progress bars, terminal output, HTTP clients, certificates, installers, file locks "
        "and type stubs run around the job's math, not in it, whether or not the job imports "
        "them.",
        fix="None needed; pin them in the lock file to keep environments identical.",
        refs=(),
        per="component",
    ),
    Rule(
        id="noise.lock-file",
        match=("packages.lock_files", "packages.lock_files.**"),
        category="noise",
        severity=("info", "info", "info"),
        title="lock file differs",
        why="a lock file says what to install; the packages installed, compared one by one, are "
        "what ran, and each changed one is a finding of its own.",
        fix="None needed; commit the lock file the job installs from.",
        refs=(),
    ),
    Rule(
        id="noise.python-patch",
        match=("python.version",),
        when=("patch",),
        category="noise",
        severity=("info", "info", "info"),
        title="Python patch release differs",
        why="the patch releases of one CPython minor version carry bug and security fixes only "
        "and keep its ABI, so the same extension builds run on both.",
        fix="None needed; pin the minor version.",
        refs=("https://devguide.python.org/developer-workflow/development-cycle/",),
    ),
    Rule(
        id="noise.argv",
        match=("run.argv",),
        category="noise",
        severity=("info", "info", "info"),
        title="command line differs only in output paths or run names",
        why="where outputs, logs and checkpoints go and what the run is called do not change "
        "what is computed.",
        fix="None needed.",
        refs=(),
        derived=True,
    ),
    Rule(
        id="noise.host",
        match=(
            "system.{hostname,memory_total_bytes}",
            "system.container.{runtime,cgroup_version,memory_limit_bytes}",
            "gpu.devices.*.{uuid_hash,pci_bus_id}",
            "gpu.devices.*.mig_devices.*.uuid_hash",
            "parallel.{rank,local_rank,initialized}",
            "parallel.sources.*",
            "parallel.dataloader.{pin_memory,prefetch_factor,timeout}",
            "parallel.dataloader.sampler.rank",
            "parallel.dataloaders.*.{pin_memory,prefetch_factor,timeout}",
            "parallel.dataloaders.*.sampler.rank",
            f"{ENV}.{{RANK,LOCAL_RANK,GROUP_RANK,ROLE_RANK,NODE_RANK,MASTER_ADDR,MASTER_PORT}}",
            f"{ENV}.{{TORCHELASTIC_RUN_ID,SLURM_JOB_ID,SLURM_PROCID}}",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="host identity differs",
        why="host names, board ids, free or total memory and job ids identify the machine, "
        "not the computation.",
        fix="None needed.",
        refs=(),
    ),
    Rule(
        id="noise.run",
        match=(
            "created_at",
            "run.{pid,cwd,label,argv}",
            "collectors.**",
            "tool.**",
            "imported_from.**",
            "imported_from",
            "schema_version",
            # Where the parameters were when the capture ran: `precision.device` (hw.device)
            # is where the math ran; the two differ only when a job captured before moving.
            "precision.params_device",
            # Whether the job had imported a package by the time it captured: what its code
            # did so far, not a condition (the package's version is its own finding).
            "packages.installed.*.imported",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="capture bookkeeping differs",
        why="timestamps, pids, durations and tool bookkeeping cannot change results.",
        fix="None needed.",
        refs=(),
    ),
    Rule(
        id="noise.env",
        match=(f"{ENV}.*",),
        category="noise",
        severity=("info", "info", "info"),
        title="environment variable that cannot change results differs",
        why="it names a location, a log setting or another tool's setting (TF_CLI_CONFIG_FILE "
        "is Terraform's), whatever prefix it shares with variables that matter.",
        fix="None needed.",
        refs=("https://developer.hashicorp.com/terraform/cli/config/environment-variables",),
        derived=True,
        per="component",
    ),
    Rule(
        id="noise.paths",
        match=(
            "python.{executable,prefix,base_prefix,environment,in_venv,conda_env,compiler}",
            "code.repo_root",
            "packages.project_root",
            "packages.installed.*.installer",
            "cuda_stack.torch_path",
            "cuda_stack.libraries.*.{reason,copies}",
            "cuda_stack.libraries.*.selected.path",
            "cuda_stack.libraries.*.copies.**",
            "torch.{imported_by,cuda_initialized,cuda_available,cuda_device_count}",
            "torch.effective.*.reason",
            "torch.effective.devices",
            "env.{prefixes,names,redacted}",
            "seeds.{declared_by,warnings,torch_imported,cuda_initialized}",
            "precision.sources.*",
            "data.items.*.{resolved,mode,error}",
            "data.items.*.files.*.{mtime_ns,error}",
            "data.{hash_algorithm,sample_block_bytes}",
            "tokenizer.{path,source,error}",
            "templates.templates.*.{path,kind,error}",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="install location, cache path or capture context differs",
        why="where things are installed and what the capture could see do not change results "
        "by themselves (the versions are compared separately).",
        fix="None needed.",
        refs=(),
    ),
)
