"""Command lines compared flag by flag: output paths and run names are noise, hyperparameters
are semantics.

`--out runs/a` vs `--out runs/a2` names where results go, not what is computed; `--lr 3e-4` vs
`--lr 6e-4` changes what is optimized. A flag is classified by its name first, then by its
value (a path that is not a config, data or model input is an output location).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from envsnap.diff.derived import Hit

_NAME_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (rule, re.compile(pattern))
    for rule, pattern in (
        (
            "noise.argv",
            r"(out(put)?|save|log(ging)?|run|exp(eriment)?|ckpt|checkpoint|results?|tensorboard"
            r"|cache|wandb|mlflow|project|tag|job)(_?(dir|path|name|id|root|file|prefix))?"
            r"|name|logdir|verbose|quiet|log_level|report_to|logging_steps|save_steps|eval_steps"
            r"|num_workers_log|print_freq|resume(_from_checkpoint)?|port|master_port|host"
            # How often the job logs, prints or saves: when it reports, not what it computes.
            r"|(log(ging)?|print|display|save|checkpoint|ckpt)_?(every(_n)?(_steps|_epochs)?"
            r"|interval|freq(uency)?|period)",
        ),
        ("randomness.seed", r"(\w+_)?seed"),
        (
            "semantics.parallel",
            r"(dist_|ddp_)?backend|world_size|nproc_per_node|nnodes|num_nodes|num_machines"
            r"|num_processes|num_gpus|strategy"
            # Parallel degrees, as Megatron (--tensor-model-parallel-size) and torchtitan
            # (--parallelism.context_parallel_degree) name them, and ZeRO's sharding stage
            # (DeepSpeed-Chat's --zero_stage).
            r"|(virtual_)?(expert_)?(tensor|pipeline|context|sequence|expert|data)(_model)?"
            r"_parallel(_shard|_replicate)?(_size|_degree)?|(tp|pp|cp|dp|ep)_(size|degree)"
            r"|zero_stage",
        ),
        ("semantics.batch", r"\w*batch\w*|bs|(gradient_|grad_)?accum\w*"),
        ("precision.amp", r"precision|fp16|bf16|amp|mixed_precision|dtype|half|tf32|amp_level"),
        (
            "semantics.hyperparameters",
            r"(\w+_)?lr|learning_rate|weight_decay|wd|momentum|betas?\d?|eps|epochs?"
            r"|num_train_epochs|max_steps|steps|warmup\w*|(lr_)?scheduler\w*|optim(izer)?"
            r"|dropout\w*|label_smoothing|max_grad_norm|clip\w*|gamma|temperature",
        ),
    )
)
_INPUT = re.compile(r"config|cfg|data\w*|dataset\w*|\w*_file|model\w*|tokenizer\w*|arch")
_PATHLIKE = re.compile(r"[/\\]|\.[A-Za-z0-9]{1,5}$")


def _name(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_").lower()


def parse(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """(positional arguments, flags) of a command line; a flag without value is 'true'."""
    positional: list[str] = []
    flags: dict[str, str] = {}
    index = 0
    while index < len(argv):
        token = argv[index]
        if token.startswith("-") and not _is_number(token):
            name, sep, value = token.partition("=")
            follows = index + 1 < len(argv) and (
                not argv[index + 1].startswith("-") or _is_number(argv[index + 1])
            )
            if not sep and follows:
                value = argv[index + 1]
                index += 1
            flags[_name(name)] = value if (sep or follows) else "true"
        else:
            positional.append(token)
        index += 1
    return positional, flags


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


# Keys that say what they are only with their section: `--wandb.name` names a run where
# `--model.name` picks a model; `--comm.backend` is the collectives library where
# `--compile.backend` is a compiler.
_BARE_KEYS = re.compile(
    r"name|tag|project|run|job|cache|results?|out(put)?|save|log(ging)?|exp(eriment)?|backend"
    r"|strategy|port|host|id"
)
_SECTIONS: dict[str, re.Pattern[str]] = {
    "noise.argv": re.compile(
        r"job|wandb|logging|log|metrics|checkpoint|ckpt|output|tracker|experiment|mlflow"
        r"|tensorboard|comet|run"
    ),
    "semantics.parallel": re.compile(r"parallelism|parallel|distributed|dist|comm|ddp|fsdp"),
}


def classify(name: str, a: str | None, b: str | None) -> str:
    """The rule a changed flag belongs to; a dotted config override (`--training.batch_size`,
    `--parallelism.tensor_parallel_degree`) by its last key, a bare key (`name`, `backend`) by
    its section too."""
    section, _, leaf = name.rpartition(".")
    for rule, pattern in _NAME_CLASSES:
        if pattern.fullmatch(leaf) and _says_what_it_is(rule, leaf, section):
            return rule
    if _INPUT.fullmatch(leaf):
        return "code.argv"
    values = [value for value in (a, b) if value is not None]
    if values and all(_PATHLIKE.search(value) for value in values):
        return "noise.argv"
    return "code.argv"


def _says_what_it_is(rule: str, leaf: str, section: str) -> bool:
    """Whether `leaf` belongs to `rule` in `section` (the part before the last dot, if any)."""
    if not section or not _BARE_KEYS.fullmatch(leaf):
        return True
    sections = _SECTIONS.get(rule)
    return sections is not None and sections.fullmatch(section.rsplit(".", 1)[-1]) is not None


def argv_hits(argv_a: list[Any], argv_b: list[Any]) -> Iterator[Hit]:
    """One hit per changed flag or argument, classified."""
    pos_a, flags_a = parse([str(token) for token in argv_a])
    pos_b, flags_b = parse([str(token) for token in argv_b])
    for name in sorted(set(flags_a) | set(flags_b)):
        a, b = flags_a.get(name), flags_b.get(name)
        if a != b:
            rule = classify(name, a, b)
            title = f"command line --{name}: {a or '(absent)'} → {b or '(absent)'}"
            yield Hit(rule, f"run.argv.--{name}", a, b, title=title)
    pos_a, pos_b = _job(pos_a), _job(pos_b)
    for index in range(max(len(pos_a), len(pos_b))):
        a = pos_a[index] if index < len(pos_a) else None
        b = pos_b[index] if index < len(pos_b) else None
        if a == b:
            continue
        if index == 0:  # the script: its directory is where the checkout lives
            rule = "code.argv" if _base(a) != _base(b) else "noise.argv"
        else:
            rule = classify("", a, b)
        title = f"command line argument {index}: {a} → {b}"
        yield Hit(rule, f"run.argv.{index}", a, b, title=title)


_INTERPRETER = re.compile(r"(python|pypy)[\d.]*(\.exe)?|torchrun|accelerate|deepspeed|launch")


def _base(token: str | None) -> str | None:
    return token.replace("\\", "/").rsplit("/", 1)[-1] if token is not None else None


def _job(positional: list[str]) -> list[str]:
    """The positional arguments from the script on: the interpreter or launcher is where
    Python lives, not what the job computes."""
    rest = list(positional)
    while rest and _INTERPRETER.fullmatch(_base(rest[0]) or ""):
        rest.pop(0)
    return rest
