"""Turn applicable conditions into a child environment, and run a command under it.

Each run gets its own directory: `hook/` (the startup hook and its config), `hook.jsonl` (what
the hook applied in each Python process), `conditions.json` (the plan), and, when output is
captured, `stdout.txt` and `stderr.txt`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envsnap.capturing.collectors.packages import PACKAGES_FRONT_ENV
from envsnap.experiment import startup
from envsnap.experiment.allowlist import may_unset
from envsnap.experiment.conditions import Conditions, env_refusal
from envsnap.experiment.packages import (
    InstallOptions,
    PackageEnv,
    build,
    host_versions,
    normalize,
    pin_problem,
)

# Seeds the hook passes to random, numpy and torch: torch takes 64-bit values, numpy 32-bit words.
SEED_RANGE = range(-(2**63), 2**64)
NUMPY_WORD_RANGE = range(2**32)


@dataclass
class Plan:
    """What a run applies: the child environment, the hook config, and a readable account.

    `env_set` and `env_unset` are the only changes taken from the manifests (allowlisted and
    checked); `own_env` is what envsnap itself sets for the hook and the package venv. `env` is
    the child's whole environment: the base environment with those changes.
    """

    env: dict[str, str]
    hook_config: dict[str, Any] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    env_set: dict[str, str] = field(default_factory=dict)
    env_unset: list[str] = field(default_factory=list)
    own_env: dict[str, str] = field(default_factory=dict)
    pins: dict[str, str] = field(default_factory=dict)  # package versions still to install
    # The package venv, for the job only: its site directory, and PATH/VIRTUAL_ENV/PYTHONPATH
    # that put it first. envsnap's own capture never runs with it (its wheels' code would run).
    package_site: str | None = None
    package_env: dict[str, str] = field(default_factory=dict)


@dataclass
class RunOutcome:
    returncode: int | None  # None: killed at the timeout
    seconds: float
    directory: Path

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def plan_for(conditions: Conditions, *, packages: bool, base_env: Mapping[str, str]) -> Plan:
    """What running under `conditions` would apply; writes nothing and starts nothing."""
    plan = Plan(env=dict(base_env))
    _apply_env(conditions, plan)
    _apply_torch_and_seed(conditions, plan)
    if packages:
        _plan_packages(conditions, plan)
    else:
        count = sum(1 for key in conditions.values if key.startswith("package:"))
        if count:
            plan.not_applied.append(
                f"{count} recorded package versions (use --packages to apply them)"
            )
    plan.not_applied.extend(f"{key}: {why}" for key, why in sorted(conditions.skipped.items()))
    return plan


def materialize(plan: Plan, run_dir: Path, *, packages: InstallOptions | None) -> list[str]:
    """Write the hook files into `run_dir`, build the package venv, and finish `plan.env`.

    Returns what happened to the planned packages, one line each (they are also added to the
    plan's applied or not-applied lists).
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    outcome: list[str] = []
    hook = str(_write_hook(run_dir, plan.hook_config))
    existing = [plan.env["PYTHONPATH"]] if plan.env.get("PYTHONPATH") else []
    plan.own_env["PYTHONPATH"] = os.pathsep.join([hook, *existing])
    plan.own_env[startup.CONFIG_ENV] = str(run_dir / "hook" / "config.json")
    plan.own_env[startup.LOG_ENV] = str(run_dir / "hook.jsonl")
    plan.own_env["ENVSNAP_RUN_DIR"] = str(run_dir)
    if packages is not None and plan.pins:
        overlay = _install_packages(plan, packages, run_dir, outcome)
        plan.package_site = str(overlay.site)
        bin_dir = overlay.root / ("Scripts" if os.name == "nt" else "bin")
        plan.package_env = {
            "PATH": os.pathsep.join([str(bin_dir), plan.env.get("PATH", "")]),
            "VIRTUAL_ENV": str(overlay.root),
            "PYTHONPATH": os.pathsep.join([hook, plan.package_site, *existing]),
        }
    plan.env.update(plan.own_env)
    plan.env.update(plan.package_env)
    _write_json(
        run_dir / "conditions.json",
        {"applied": plan.applied, "not_applied": plan.not_applied, "hook": plan.hook_config},
    )
    return outcome


def prepare(
    conditions: Conditions,
    run_dir: Path,
    *,
    packages: InstallOptions | None,
    base_env: Mapping[str, str],
) -> Plan:
    """The plan for running under `conditions`, made ready to launch in `run_dir`."""
    plan = plan_for(conditions, packages=packages is not None, base_env=base_env)
    materialize(plan, run_dir, packages=packages)
    return plan


def environment_from(plan: Plan, base_env: Mapping[str, str]) -> dict[str, str]:
    """`base_env` with the plan's checked changes and envsnap's own variables, nothing else.

    envsnap's post-run capture runs in envsnap's own environment this way, never in one a
    manifest chose.
    """
    env = {name: value for name, value in base_env.items() if name not in plan.env_unset}
    env.update(plan.env_set)
    env.update(plan.own_env)
    if plan.package_site is not None:
        # Listed by reading its metadata files only; nothing in the venv is imported or run.
        env[PACKAGES_FRONT_ENV] = plan.package_site
    return env


def _apply_env(conditions: Conditions, plan: Plan) -> None:
    recorded = {c.name for c in conditions.values.values() if c.kind == "env"}
    # A variable of the table that the recorded run's families include but that run did not
    # have was unset there; no other variable of this machine is ever unset.
    for name in sorted(plan.env):
        if conditions.selects_env(name) and name not in recorded and may_unset(name):
            _unset(plan, name, f"env {name} unset (absent from the recorded run)")
    for condition in sorted(conditions.values.values(), key=lambda c: c.key):
        if condition.kind != "env":
            continue
        if condition.value is None:
            if may_unset(condition.name) and condition.name in plan.env:
                _unset(plan, condition.name, f"env {condition.name} unset")
            continue
        # The conditions were checked when read; checked again here, whoever built them.
        why = env_refusal(condition.name, condition.value)
        if why is not None:
            plan.not_applied.append(f"env:{condition.name}: {why}")
            continue
        plan.env[condition.name] = plan.env_set[condition.name] = condition.value
        plan.applied.append(f"env {condition.name}={condition.value}")


def _unset(plan: Plan, name: str, line: str) -> None:
    del plan.env[name]
    plan.env_unset.append(name)
    plan.applied.append(line)


def _apply_torch_and_seed(conditions: Conditions, plan: Plan) -> None:
    flags = {
        c.name: c.value
        for c in conditions.values.values()
        if c.kind == "torch" and c.value is not None
    }
    refused = {name for name, value in flags.items() if startup.flag_problem(name, value)}
    for name in sorted(refused):
        plan.not_applied.append(f"torch:{name}: {startup.flag_problem(name, flags.pop(name))}")
    if flags:
        plan.hook_config["torch"] = flags
        listed = ", ".join(f"{name}={value}" for name, value in sorted(flags.items()))
        plan.applied.append(f"torch flags when the job imports torch: {listed}")
    seed = conditions.values.get("seed")
    if seed is not None and isinstance(seed.value, dict):
        seeds = _integer_seeds(seed.value, plan)
        if "master_seed" not in seeds:
            return
        plan.hook_config["seed"] = seeds
        plan.own_env["ENVSNAP_MASTER_SEED"] = plan.env["ENVSNAP_MASTER_SEED"] = str(
            seeds["master_seed"]
        )
        plan.applied.append(
            f"seed {seeds['master_seed']}: random at start, numpy and torch on import, "
            "ENVSNAP_MASTER_SEED set"
        )


def _is_seed(value: Any, within: range = SEED_RANGE) -> bool:
    return type(value) is int and value in within


def _integer_seeds(recorded: dict[str, Any], plan: Plan) -> dict[str, Any]:
    """The recorded seeds the hook can apply (integers in range; numpy's as 32-bit words).

    Any other value is listed as not applicable rather than written for the hook to trip on.
    """
    seeds: dict[str, Any] = {}
    for purpose, value in recorded.items():
        if purpose == "rank":
            continue
        if purpose == "numpy" and isinstance(value, list):
            valid = bool(value) and all(_is_seed(word, NUMPY_WORD_RANGE) for word in value)
        else:
            valid = _is_seed(value)
        if valid:
            seeds[purpose] = value
        else:
            plan.not_applied.append(f"seed {purpose}: {value!r} is not an integer seed")
    return seeds


def _plan_packages(conditions: Conditions, plan: Plan) -> None:
    here = host_versions()
    for condition in conditions.values.values():
        if condition.kind != "package":
            continue
        name, version = condition.name, condition.value
        if version is None:
            if normalize(name) in here:
                plan.not_applied.append(
                    f"package {name}: installed here ({here[normalize(name)]}), absent "
                    "from the recorded run; a venv built on this one cannot hide it"
                )
            continue
        problem = pin_problem(name, version)
        if problem is not None:
            plan.not_applied.append(f"package:{name}: {problem}: never passed to an installer")
        elif here.get(normalize(name)) != version:
            plan.pins[name] = version
    if plan.pins:
        listed = ", ".join(f"{name}=={version}" for name, version in sorted(plan.pins.items()))
        plan.applied.append(f"packages to install into a cached venv (wheels only): {listed}")


def _install_packages(
    plan: Plan, options: InstallOptions, run_dir: Path, outcome: list[str]
) -> PackageEnv:
    overlay = build(plan.pins, options, run_dir)
    for name, version in sorted(overlay.installed.items()):
        outcome.append(f"applied: package {name}=={version} ({overlay.engine})")
        plan.applied.append(f"package {name}=={version} ({overlay.engine})")
    for name, why in sorted(overlay.failed.items()):
        line = f"package {name}=={plan.pins[name]}: cannot be installed: {why}"
        outcome.append(f"not applied: {line}")
        plan.not_applied.append(line)
    return overlay


def _write_hook(run_dir: Path, config: dict[str, Any]) -> Path:
    hook = run_dir / "hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "_envsnap_startup.py").write_text(
        Path(startup.__file__).read_text(encoding="utf-8"), encoding="utf-8"
    )
    (hook / "sitecustomize.py").write_text(startup.SITECUSTOMIZE, encoding="utf-8")
    _write_json(hook / "config.json", config)
    return hook


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def launch(
    argv: Sequence[str],
    plan: Plan,
    run_dir: Path,
    *,
    timeout_s: float,
    capture: bool,
) -> RunOutcome:
    """Run argv (never through a shell) under the plan, in a process group of its own.

    At the timeout, or when envsnap is interrupted (SIGINT, SIGTERM), the whole group is
    stopped: a launcher's workers (torchrun, multiprocessing) die with the command.
    """
    started = time.monotonic()
    out = open(run_dir / "stdout.txt", "wb") if capture else None  # noqa: SIM115
    err = open(run_dir / "stderr.txt", "wb") if capture else None  # noqa: SIM115
    try:
        # A session of its own, so a terminal's Ctrl-C reaches envsnap, which stops the whole
        # group; otherwise only the processes in the terminal's foreground group would get it.
        process = subprocess.Popen(
            list(argv), env=plan.env, stdout=out, stderr=err, start_new_session=True
        )
        with _terminate_as_interrupt():
            try:
                code: int | None = process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                _stop_group(process, grace_s=0)
                code = None
            except BaseException:
                _stop_group(process, grace_s=INTERRUPT_GRACE_S)
                raise
    finally:
        for handle in (out, err):
            if handle is not None:
                handle.close()
    return RunOutcome(code, time.monotonic() - started, run_dir)


INTERRUPT_GRACE_S = 5.0


def _stop_group(process: subprocess.Popen[bytes], *, grace_s: float) -> None:
    """Interrupt the command's group, give it `grace_s` to exit, then kill what is left."""
    if grace_s > 0:
        _signal_group(process, signal.SIGINT)
        # A second Ctrl-C during the grace kills at once.
        with suppress(subprocess.TimeoutExpired, KeyboardInterrupt):
            process.wait(timeout=grace_s)
    # The group outlives its leader while any member (a torchrun worker) is alive.
    _signal_group(process, signal.SIGKILL)
    process.wait(timeout=30)


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    except (ProcessLookupError, PermissionError):
        pass


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While waiting, SIGTERM (a scheduler's stop) unwinds like Ctrl-C, so the group is stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def hook_events(run_dir: Path) -> list[dict[str, Any]]:
    """What the startup hook reported, one entry per event and process."""
    path = run_dir / "hook.jsonl"
    if not path.is_file():
        return []
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events
