"""Capture configuration: what to collect and how, from defaults, config files and flags.

Sources, later ones winning: built-in defaults, `[tool.envsnap]` in the nearest
`pyproject.toml`, `envsnap.toml` in the same directory, then command-line flags.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from envsnap.capturing.declared import ALIASES, DECLARED_SECTIONS, normalize
from envsnap.errors import ConfigError
from envsnap.files.reader import read_input

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

# Families of environment variables that can change numerical results or the job's layout.
DEFAULT_ENV_PREFIXES: tuple[str, ...] = (
    "CUDA_",
    "CUBLAS_",
    "CUBLASLT_",
    "CUDNN_",
    "NCCL_",
    "TORCH_",
    "PYTORCH_",
    "TORCHINDUCTOR_",
    "TORCHDYNAMO_",
    "TRITON_",
    "NVIDIA_",
    "NVTE_",
    "OMP_",
    "MKL_",
    "KMP_",
    "OPENBLAS_",
    "ONEDNN_",
    "DNNL_",
    "ATEN_",
    "XLA_",
    # Other frameworks' numerics knobs (determinism, autotuning, default precision): a job that
    # imports MXNet or JAX beside torch computes under them too.
    "MXNET_",
    "JAX_",
    "HF_",
    "TRANSFORMERS_",
    "TOKENIZERS_",
    "ACCELERATE_",
    "DEEPSPEED_",
    "ROCBLAS_",
    "MIOPEN_",
    "HIPBLASLT_",
    "HIP_",
    "ROCR_",
    "FLASH_ATTENTION_",
)
# Exact names: hash seed, launcher variables and a few single knobs.
DEFAULT_ENV_NAMES: tuple[str, ...] = (
    "PYTHONHASHSEED",
    "WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "ROLE_RANK",
    "NODE_RANK",
    "MASTER_ADDR",
    "MASTER_PORT",
    "TORCHELASTIC_RUN_ID",
    "SLURM_JOB_ID",
    "SLURM_NTASKS",
    "SLURM_PROCID",
    "SLURM_NNODES",
    "DISABLE_ADDMM_CUDA_LT",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    # TensorFlow's numerics knobs by name, not a TF_ prefix: that prefix is also Terraform's
    # (TF_CLI_CONFIG_FILE, TF_VAR_*, TF_LOG...), whose variables cannot change a result.
    # oneDNN kernels compute in another order (tensorflow/core/util/port.cc start-up notice:
    # "You may see slightly different numerical results due to floating-point round-off").
    "TF_ENABLE_ONEDNN_OPTS",
    # Deterministic GPU ops and cuDNN algorithms (TensorFlow 2.8 release notes;
    # NVIDIA/framework-reproducibility).
    "TF_DETERMINISTIC_OPS",
    "TF_CUDNN_DETERMINISTIC",
    # cuDNN algorithm picked by timing, as torch's cudnn.benchmark.
    "TF_CUDNN_USE_AUTOTUNE",
    # NVIDIA's automatic mixed precision graph rewrite: float16 compute.
    "TF_ENABLE_AUTO_MIXED_PRECISION",
    "TF_ENABLE_AUTO_MIXED_PRECISION_GRAPH_REWRITE",
    # XLA auto-clustering fuses ops into other kernels.
    "TF_XLA_FLAGS",
    # CPU thread counts split reductions differently, as OMP_NUM_THREADS does.
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    # numpy's CPU dispatch: which SIMD kernels its ufuncs and sorts run (numpy's
    # npy_cpu_features.h; docs, "CPU/SIMD Optimizations", runtime dispatch). By name: the NPY_
    # prefix also holds numpy's build and test switches.
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
)


@dataclass(frozen=True)
class CaptureConfig:
    """Everything a capture can be told. Immutable; use `with_overrides` to derive."""

    env_prefixes: tuple[str, ...] = DEFAULT_ENV_PREFIXES
    env_names: tuple[str, ...] = DEFAULT_ENV_NAMES
    env_exclude: tuple[str, ...] = ()
    redact_patterns: tuple[str, ...] = ()
    budget_s: float = 10.0
    import_torch: bool = False
    # The numerics probe: None runs it in a job that imported torch (the in-job API's default)
    # and not from the CLI; True runs it wherever torch is loaded; False never.
    probe: bool | None = None
    # Declared, job-level values ([tool.envsnap] tables other than the above), by section.
    declared: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str | None = None

    def with_overrides(self, **changes: Any) -> CaptureConfig:
        return replace(self, **changes)


def _string_tuple(value: Any, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: {key} must be a list of strings")
    return tuple(value)


def config_from_table(table: dict[str, Any], source: str) -> CaptureConfig:
    """Build a config from a `[tool.envsnap]`-shaped table, refusing unknown keys."""
    config = CaptureConfig(source=source)
    env = table.get("env", {})
    if not isinstance(env, dict):
        raise ConfigError(f"{source}: [env] must be a table")
    changes: dict[str, Any] = {}
    unknown_env = set(env) - {"prefixes", "extra_prefixes", "names", "exclude"}
    if unknown_env:
        raise ConfigError(f"{source}: unknown key env.{sorted(unknown_env)[0]}")
    if "prefixes" in env:
        changes["env_prefixes"] = _string_tuple(env["prefixes"], "env.prefixes", source)
    if "extra_prefixes" in env:
        base = changes.get("env_prefixes", config.env_prefixes)
        changes["env_prefixes"] = base + _string_tuple(
            env["extra_prefixes"], "env.extra_prefixes", source
        )
    if "names" in env:
        changes["env_names"] = config.env_names + _string_tuple(env["names"], "env.names", source)
    if "exclude" in env:
        changes["env_exclude"] = _string_tuple(env["exclude"], "env.exclude", source)
    if "redact" in table:
        changes["redact_patterns"] = _string_tuple(table["redact"], "redact", source)
        _check_patterns(changes["redact_patterns"], source)
    if "budget_s" in table:
        budget = table["budget_s"]
        if not isinstance(budget, (int, float)) or isinstance(budget, bool) or budget <= 0:
            raise ConfigError(f"{source}: budget_s must be a positive number")
        changes["budget_s"] = float(budget)
    declared = {
        key: value for key, value in table.items() if key not in {"env", "redact", "budget_s"}
    }
    for key, value in declared.items():
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: [{key}] must be a table")
        if key in DECLARED_SECTIONS:
            declared[key] = normalize(key, value, source)
    changes["declared"] = declared
    return replace(config, **changes)


def _check_patterns(patterns: tuple[str, ...], source: str) -> None:
    import re

    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{source}: redact pattern {pattern!r} is invalid: {exc}") from None


def _read_text(path: Path) -> str:
    try:
        return read_input(path, "a config file", error=ConfigError).decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None


def find_config_file(start: Path) -> Path | None:
    """The nearest envsnap.toml, or pyproject.toml with a [tool.envsnap] table, upwards."""
    for directory in (start, *start.parents):
        candidate = directory / "envsnap.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(_read_text(pyproject))
            except (ConfigError, tomllib.TOMLDecodeError):
                continue
            if isinstance(data.get("tool"), dict) and "envsnap" in data["tool"]:
                return pyproject
        if (directory / ".git").exists():
            break
    return None


def load_config(path: Path) -> CaptureConfig:
    """Read a config file. Raises `ConfigError` with a one-line message when it is invalid."""
    try:
        data = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("envsnap", {})
    else:
        table = data.get("tool", {}).get("envsnap", data)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.envsnap] must be a table")
    return config_from_table(table, str(path))


def discover_config(start: Path) -> CaptureConfig:
    path = find_config_file(start)
    return load_config(path) if path else CaptureConfig()


# Tables `--set` may change: the in-job sections. Seeds are not among them: the job declares
# them through envsnap.seeding.
SETTABLE_SECTIONS: tuple[str, ...] = DECLARED_SECTIONS


def with_declared(config: CaptureConfig, section: str, **values: Any) -> CaptureConfig:
    """Set declared fields of one in-job section (from flags), validated like the config."""
    table = {**config.declared.get(section, {}), **values}
    return replace(config, declared={**config.declared, section: normalize(section, table, "flag")})


def _parse_value(text: str) -> Any:
    """A TOML value (8, 0.5, true, "x", [1, 2]); anything else is kept as a plain string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_sets(config: CaptureConfig, assignments: Sequence[str]) -> CaptureConfig:
    """Apply `--set section.field=value` overrides (later ones win) and re-validate."""
    declared = copy.deepcopy(config.declared)
    touched: set[str] = set()
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        parts = [part.strip() for part in name.split(".")]
        if not sep or len(parts) < 2 or not all(parts):
            raise ConfigError(f"--set {assignment!r}: expected section.field=value")
        if parts[0] not in SETTABLE_SECTIONS:
            raise ConfigError(
                f"--set {assignment!r}: unknown section {parts[0]!r} "
                f"(one of {', '.join(SETTABLE_SECTIONS)})"
            )
        node = declared.setdefault(parts[0], {})
        for part in parts[1:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"--set {assignment!r}: {part} is not a table")
            node = child
        if len(parts) == 2:
            # Resolve a short spelling now, so a later flag for the same field wins.
            parts[-1] = ALIASES.get(parts[0], {}).get(parts[-1], parts[-1])
        node[parts[-1]] = _parse_value(text.strip())
        touched.add(parts[0])
    for section in touched & set(DECLARED_SECTIONS):
        declared[section] = normalize(section, declared[section], "--set")
    return replace(config, declared=declared)
