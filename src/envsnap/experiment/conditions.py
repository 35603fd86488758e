"""Which of a manifest's conditions can be applied to a job on this machine, and as what.

A condition is one applicable setting, keyed so both manifests of a pair name it alike:
`env:NAME` (an environment variable; value None means unset), `torch:FIELD` (a torch runtime
flag, FIELD as in the manifest's torch section), `seed` (the declared seeds), and
`package:NAME` (an installed version; None means not installed). Everything else in a
manifest (GPU, driver, CUDA libraries, CPU, interpreter, code, data) describes the machine or
the job itself and is reported as not applicable, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from envsnap.capturing.redact import Redactor
from envsnap.diff.env_meaning import cannot_act, names_location
from envsnap.experiment.allowlist import NOT_LISTED, refusal
from envsnap.experiment.packages import pin_problem
from envsnap.experiment.startup import (
    DETERMINISM_FLAGS,
    FP32_PRECISION_FLAG,
    TORCH_FLAGS,
    flag_problem,
)
from envsnap.manifest.effective import CPU_OPS, cpu_settings

ConditionKind = Literal["env", "torch", "seed", "package"]
REDACTED = "<redacted>"
# Where a package must have come from for a version pin to reinstall it (None: not recorded).
INDEX_SOURCES = frozenset({"index", None})
SHOWN_VALUE_CHARS = 40
SEED_PURPOSES = ("python", "numpy", "torch", "cuda")
_REDACTOR = Redactor()
_TOKEN = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|([^.\[]+)')

# Manifest paths (a section, or a field where it differs from its section) that cannot be
# applied, and why; the longest that a path starts with answers.
NOT_APPLICABLE: dict[str, str] = {
    "precision.device": "the device the recorded run's model and math ran on: needs that hardware",
    "gpu": "another GPU or driver: needs that hardware",
    "cuda_stack": "another CUDA stack or driver: needs that installation",
    "system": "another machine (OS, CPU, memory)",
    "python": "another Python interpreter",
    "code": "another code revision: check it out to apply it",
    "data": "the job's input data: point the job at the same files",
    "tokenizer": "the job's tokenizer files",
    "templates": "the job's prompt or chat templates",
    "precision": "declared by the job's code (dtypes, autocast, optimizer)",
    "parallel": "set by the job's launcher (world size, batch layout)",
    "torch": "a property of the torch build or the hardware, not a runtime flag",
    "seeds": "set or observed by the job's own code; the declared seed is applied instead",
    "packages": "not a package version",
}
_NOT_APPLICABLE_BY_PARTS = {tuple(key.split(".")): why for key, why in NOT_APPLICABLE.items()}
TORCH_FIELDS = (*TORCH_FLAGS, *DETERMINISM_FLAGS)
# Variables a launcher sets to lay out its processes: imposed on a single job, WORLD_SIZE=8
# makes torch.distributed wait for eight ranks.
LAUNCHER_VARIABLES = frozenset(
    {
        "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
        "NODE_RANK", "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
    }
)  # fmt: skip
LAUNCHER_PREFIXES = ("SLURM_", "TORCHELASTIC_", "OMPI_COMM_WORLD_", "PMI_")
# Which of the recorded machine's GPUs the job saw, and in which order.
DEVICE_SELECTION = frozenset(
    {
        "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
    }
)  # fmt: skip


def bound_to_machine(name: str) -> str | None:
    """Why a variable belongs to the recorded machine or launch rather than to the job's
    conditions (so it is neither set nor unset here), or None when it can be applied."""
    if name in LAUNCHER_VARIABLES or name.startswith(LAUNCHER_PREFIXES):
        return "set by the recorded run's launcher (process layout)"
    if name in DEVICE_SELECTION:
        return "selects the recorded machine's GPUs"
    if names_location(name):
        return "a location on the recorded machine"
    if cannot_act(name):
        return "a log or another tool's setting: cannot change results"
    if _REDACTOR.is_secret_name(name):
        return "a credential: this machine's own is kept"
    return None


def env_refusal(name: str, value: object) -> str | None:
    """Why B's `name=value` is not applied here (see `allowlist.refusal`), in the most telling
    words: a variable outside the table that belongs to the recorded machine says so."""
    why = refusal(name, value)
    if why == NOT_LISTED:
        why = bound_to_machine(name) or why
    return why


def shown(value: object) -> str:
    """A recorded value for a message: quoted, cut short, control characters as escapes."""
    text = value if isinstance(value, str) else repr(value)
    cut = text[:SHOWN_VALUE_CHARS] + ("..." if len(text) > SHOWN_VALUE_CHARS else "")
    return repr(cut)


@dataclass(frozen=True)
class Condition:
    """One applicable setting. `value` None: unset, not installed, or no seed declared."""

    key: str
    kind: ConditionKind
    name: str
    value: Any

    def describe(self) -> str:
        if self.kind == "seed":
            seed = self.value.get("master_seed") if isinstance(self.value, dict) else None
            return f"seed={seed}" if self.value is not None else "seed undeclared"
        if self.value is None:
            absent = "not installed" if self.kind == "package" else "unset"
            return f"{self.name} {absent}"
        return f"{self.name}={self.value}"


@dataclass
class Conditions:
    """The applicable conditions of one manifest (or of a mix of two)."""

    values: dict[str, Condition] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # key -> why it cannot be applied
    env_prefixes: tuple[str, ...] = ()
    env_names: tuple[str, ...] = ()

    def selects_env(self, name: str) -> bool:
        """Whether the recorded run would have recorded `name` had it been set."""
        return name in self.env_names or name.startswith(self.env_prefixes)


def split_path(path: str) -> tuple[str, ...]:
    """`packages.installed["a.b"].version` -> ('packages', 'installed', 'a.b', 'version')."""
    return tuple(
        quoted.replace('\\"', '"').replace("\\\\", "\\") if quoted else plain
        for quoted, plain in _TOKEN.findall(path)
    )


def keys_for_path(path: str) -> list[str]:
    """The conditions a manifest path is evidence for; empty when it cannot be applied.

    A path above several torch flags (`torch.deterministic`) stands for each of them.
    """
    parts = split_path(path)
    if not parts:
        return []
    head, rest = parts[0], parts[1:]
    if head == "env" and len(rest) >= 2 and rest[0] == "variables":
        return [f"env:{rest[1]}"]
    if head == "seeds" and rest[:1] == ("pythonhashseed",):
        return ["env:PYTHONHASHSEED"]
    if head == "seeds" and rest[:1] and rest[0] in ("master_seed", "rank", "derived"):
        return ["seed"]
    if head == "torch" and rest[:2] == ("effective", "cpu") and len(rest) == 3:
        # A derived CPU precision (the differ's torch.effective.cpu.matmul_fp32): the torch
        # settings that decide it, as `manifest.effective.cpu_settings` names them.
        op = rest[2].removesuffix("_fp32")
        settings = cpu_settings(op) if op in CPU_OPS else ()
        return [key for path in settings for key in keys_for_path(path)]
    if head == "torch" and rest[:1] == ("fp32_precision",) and len(rest) == 2:
        # One level, keyed with its dots ("mkldnn.matmul"): not a parent of "mkldnn.matmul.x".
        key = f"torch:{FP32_PRECISION_FLAG}{rest[1]}"
        return [key] if key.removeprefix("torch:") in TORCH_FIELDS else []
    if head == "torch" and rest:
        field = ".".join(rest)
        return [f"torch:{f}" for f in TORCH_FIELDS if f == field or f.startswith(field + ".")]
    if head == "packages" and len(rest) >= 2 and rest[0] == "installed":
        return [f"package:{rest[1]}"]
    return []


def why_not_applicable(path: str) -> str:
    parts = split_path(path)
    for length in range(len(parts), 0, -1):
        why = _NOT_APPLICABLE_BY_PARTS.get(parts[:length])
        if why is not None:
            return why
    return "run metadata"


def conditions_of(document: dict[str, Any]) -> Conditions:
    """Every applicable condition a manifest document records."""
    out = Conditions()
    _env(document.get("env"), document.get("seeds"), out)
    _torch(document.get("torch"), out)
    _seed(document.get("seeds"), out)
    _packages(document.get("packages"), out)
    return out


def _add(out: Conditions, kind: ConditionKind, name: str, value: Any) -> None:
    key = "seed" if kind == "seed" else f"{kind}:{name}"
    out.values[key] = Condition(key, kind, name, value)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def _env(env: Any, seeds: Any, out: Conditions) -> None:
    if isinstance(env, dict):
        out.env_prefixes = _strings(env.get("prefixes"))
        out.env_names = _strings(env.get("names"))
        redacted = set(_strings(env.get("redacted")))
        variables = env.get("variables")
        for name, value in (variables if isinstance(variables, dict) else {}).items():
            _add_env(out, name, value, redacted)
    # The seeds section records PYTHONHASHSEED even when the env section was not captured.
    key = "env:PYTHONHASHSEED"
    if isinstance(seeds, dict) and key not in out.values and key not in out.skipped:
        recorded = seeds.get("pythonhashseed")
        if type(recorded) is int:
            recorded = str(recorded)
        _add_env(out, "PYTHONHASHSEED", recorded, set())


def _add_env(out: Conditions, name: str, value: Any, redacted: set[str]) -> None:
    """Add B's variable when the allowlist takes it; otherwise say why it is not applied."""
    key = f"env:{name}"
    if name in redacted or REDACTED in str(value):
        out.skipped[key] = "its value was redacted in the manifest"
        return
    why = None if value is None and name == "PYTHONHASHSEED" else env_refusal(name, value)
    if why is not None:
        out.skipped[key] = f"{why} (recorded {shown(value)})"
    else:
        _add(out, "env", name, value)


def _recorded(torch: dict[str, Any], name: str) -> Any:
    """The torch section's value of a flag; an fp32_precision level is one key with dots."""
    if name.startswith(FP32_PRECISION_FLAG):
        levels = torch.get("fp32_precision")
        return (
            levels.get(name.removeprefix(FP32_PRECISION_FLAG)) if isinstance(levels, dict) else None
        )
    value: Any = torch
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _torch(torch: Any, out: Conditions) -> None:
    if not isinstance(torch, dict):
        return
    for name in TORCH_FIELDS:
        value = _recorded(torch, name)
        if isinstance(value, str) and name.startswith("matmul.allow_") and "reduced" in name:
            # Recorded as text; only the plain boolean form can be set back.
            value = {"True": True, "False": False}.get(value)
        if value is None:
            continue
        problem = flag_problem(name, value)
        if problem is not None:
            out.skipped[f"torch:{name}"] = f"the recorded value {problem}"
        else:
            _add(out, "torch", name, value)


def _seed(seeds: Any, out: Conditions) -> None:
    if not isinstance(seeds, dict):
        return
    master = seeds.get("master_seed")
    if type(master) is not int:
        _add(out, "seed", "seed", None)
        return
    from envsnap.training.seeding.derive import derive_seed, numpy_seed_words

    rank = seeds.get("rank") if type(seeds.get("rank")) is int else None
    recorded_seeds = seeds.get("derived")
    derived: dict[str, Any] = recorded_seeds if isinstance(recorded_seeds, dict) else {}
    value: dict[str, Any] = {"master_seed": master, "rank": rank}
    for purpose in SEED_PURPOSES:
        recorded = derived.get(purpose)
        value[purpose] = (
            recorded if isinstance(recorded, int) else derive_seed(master, purpose, rank)
        )
    value["numpy"] = numpy_seed_words(value["numpy"])
    _add(out, "seed", "seed", value)


def _packages(packages: Any, out: Conditions) -> None:
    installed = packages.get("installed") if isinstance(packages, dict) else None
    if not isinstance(installed, dict):
        return
    for name, package in installed.items():
        if not isinstance(package, dict):
            continue
        key = f"package:{name}"
        source, version = package.get("source"), package.get("version")
        if source not in INDEX_SOURCES:
            out.skipped[key] = (
                f"installed from a VCS/local source ({shown(source)}): a version pin cannot "
                "reinstall it"
            )
        elif not version:
            out.skipped[key] = "no recorded version"
        elif (problem := pin_problem(name, version)) is not None:
            out.skipped[key] = f"{problem}: never passed to an installer"
        else:
            _add(out, "package", name, version)


def value_or_absent(conditions: Conditions, key: str, like: Condition) -> Condition:
    """`key` of these conditions; absent ones read as unset/not installed/undeclared."""
    found = conditions.values.get(key)
    return found if found is not None else Condition(key, like.kind, like.name, None)


def differing(a: Conditions, b: Conditions) -> list[str]:
    """Keys whose applicable value differs between the two sides, sorted."""
    keys = set(a.values) | set(b.values)
    out = []
    for key in sorted(keys - set(a.skipped) - set(b.skipped)):
        like = a.values.get(key) or b.values[key]
        if key.startswith("torch:") and (key not in a.values or key not in b.values):
            continue  # a flag one side's torch did not have: nothing to set it back to
        if value_or_absent(a, key, like).value != value_or_absent(b, key, like).value:
            out.append(key)
    return out


def mix(a: Conditions, b: Conditions, chosen: Iterable[str]) -> Conditions:
    """A's conditions with the chosen keys taken from B (B lacking one: unset there)."""
    values = dict(a.values)
    for key in chosen:
        like = a.values.get(key) or b.values[key]
        values[key] = value_or_absent(b, key, like)
    return Conditions(
        values=values,
        skipped={**a.skipped, **b.skipped},
        env_prefixes=tuple(sorted({*a.env_prefixes, *b.env_prefixes})),
        env_names=tuple(sorted({*a.env_names, *b.env_names})),
    )
