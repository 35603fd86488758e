"""`envsnap run --as B.json -- CMD`: run a command under another run's applicable conditions."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from envsnap.cli import cli

if TYPE_CHECKING:
    from envsnap.experiment.launch import Plan
    from envsnap.experiment.packages import InstallOptions

F = TypeVar("F", bound=Callable[..., Any])
MANIFEST_TIMEOUT_S = 300
SHOWN_NOT_APPLICABLE = 8
WORK_ROOT = Path(".envsnap")
# Written into WORK_ROOT: run outputs in a repository must not show as uncommitted changes,
# or the next manifest's diff would open with "uncommitted changes differ".
WORK_ROOT_GITIGNORE = (
    "# Written by envsnap: run and bisect outputs are not part of the repository.\n*\n"
)


def package_options(func: F) -> F:
    """--packages and how to install them (shared with `bisect`)."""
    for decorator in reversed(
        [
            click.option(
                "--packages",
                is_flag=True,
                help="Also apply the recorded package versions, through a cached venv.",
            ),
            click.option(
                "--find-links",
                multiple=True,
                metavar="DIR|URL",
                help="Extra place to find wheels (repeatable; passed to uv or pip).",
            ),
            click.option("--no-index", is_flag=True, help="Install from --find-links only."),
            click.option(
                "--cache-dir",
                type=click.Path(file_okay=False),
                help="Where package venvs are cached [default: ~/.cache/envsnap/venvs].",
            ),
        ]
    ):
        func = decorator(func)
    return func


def install_options(
    packages: bool, find_links: tuple[str, ...], no_index: bool, cache_dir: str | None
) -> InstallOptions | None:
    from envsnap.experiment.packages import InstallOptions, default_cache_dir

    if not packages:
        return None
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    return InstallOptions(cache, tuple(find_links), no_index)


def load_manifest_document(path: str) -> dict[str, Any]:
    """A validated manifest, as its stored JSON document."""
    from envsnap.manifest.model import manifest_from_document, read_document

    document = read_document(path)
    manifest_from_document(document, path)
    return document


def yes_option(func: F) -> F:
    """--yes (shared with `bisect`)."""
    return click.option(
        "-y", "--yes", is_flag=True, help="Run without asking, after printing the plan."
    )(func)


def new_work_dir(given: str | None, kind: str) -> Path:
    if given:
        path = Path(given)
    else:
        _ignored_by_git(WORK_ROOT)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = WORK_ROOT / kind / f"{stamp}-{os.getpid()}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _ignored_by_git(root: Path) -> None:
    """Create `root` with a `.gitignore` that ignores everything below it (kept if present)."""
    root.mkdir(parents=True, exist_ok=True)
    try:
        with open(root / ".gitignore", "x", encoding="utf-8") as handle:
            handle.write(WORK_ROOT_GITIGNORE)
    except FileExistsError:
        pass


def require_command(command: tuple[str, ...]) -> None:
    if not command:
        raise click.UsageError("missing the command to run (put it after --)")


def say(prefix: str, text: str) -> None:
    """One line on stderr; whatever a manifest put into `text` is shown escaped, never sent."""
    from envsnap.render.escape import terminal_text

    click.echo(f"{prefix}: {terminal_text(text)}", err=True)


def say_plan(prefix: str, source: str, plan: Plan) -> None:
    """What running under `source`'s conditions applies and what it does not."""
    say(prefix, f"conditions of {source}")
    for line in plan.applied:
        say(prefix, f"  applied: {line}")
    for line in plan.not_applied:
        say(prefix, f"  not applied: {line}")


def confirmed(prefix: str, yes: bool, question: str) -> bool:
    """Whether to go on: --yes, or the user's answer on the terminal (default No).

    Without a terminal to ask on, and without --yes, refuses (exit 2): a script must say --yes.
    """
    from envsnap.errors import EnvsnapError

    if yes:
        return True
    if not sys.stdin.isatty():
        raise EnvsnapError(
            "nothing run: stdin is not a terminal to confirm on; read the plan above and pass "
            "--yes to run it"
        )
    if click.confirm(question, default=False, err=True):
        return True
    say(prefix, "nothing run")
    return False


@cli.command(name="run")
@click.option("--as", "as_path", required=True, metavar="B.json", help="Manifest to imitate.")
@package_options
@click.option("--work-dir", metavar="DIR", help="Where the hook, log and manifest go.")
@click.option("--no-manifest", is_flag=True, help="Do not capture a manifest of the run.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=86400.0,
              show_default=True, help="Kill the command after this many seconds.")  # fmt: skip
@yes_option
@click.option("-q", "--quiet", is_flag=True, help="Print only the plan and problems.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def run_as(
    as_path: str,
    packages: bool,
    find_links: tuple[str, ...],
    no_index: bool,
    cache_dir: str | None,
    work_dir: str | None,
    no_manifest: bool,
    timeout_s: float,
    yes: bool,
    quiet: bool,
    command: tuple[str, ...],
) -> int:
    """Run CMD with B's applicable conditions: env variables, torch flags, threads, seeds.

    Only the environment variables of envsnap's table (those that change numerical results,
    with checked values) are taken from B. The plan is printed first, then confirmed on the
    terminal (or by --yes). Torch flags are applied by a startup hook right after the job
    imports torch; --packages also installs B's package versions into a cached venv. Exits
    with CMD's exit status.
    """
    from envsnap.experiment.conditions import conditions_of
    from envsnap.experiment.launch import hook_events, launch, materialize, plan_for

    require_command(command)
    document = load_manifest_document(as_path)
    options = install_options(packages, find_links, no_index, cache_dir)
    plan = plan_for(conditions_of(document), packages=options is not None, base_env=os.environ)
    say_plan("envsnap run", as_path, plan)
    if not quiet:
        _say_not_applicable(_not_applicable_here(document))
    if not confirmed("envsnap run", yes, "Run the command under these conditions?"):
        return 1
    run_dir = new_work_dir(work_dir, "run")
    for line in materialize(plan, run_dir, packages=options):
        if not (quiet and line.startswith("applied")):
            say("envsnap run", f"  {line}")
    outcome = launch(command, plan, run_dir, timeout_s=timeout_s, capture=False)
    if not quiet:
        _say_hook(plan, hook_events(run_dir))
    if not no_manifest:
        _capture_manifest(plan, run_dir, as_path, quiet)
    if outcome.returncode is None:
        click.echo(f"envsnap run: killed after {timeout_s:g} s", err=True)
        return 124
    return outcome.returncode


def _not_applicable_here(document: dict[str, Any]) -> list[str]:
    """Differences between B and this environment that cannot be applied, most severe first."""
    from envsnap.capturing.config import discover_config
    from envsnap.capturing.run import capture_document
    from envsnap.experiment.findings import not_applicable_here

    here = capture_document(config=discover_config(Path.cwd()))
    return not_applicable_here(document, here)


def _say_not_applicable(not_here: list[str]) -> None:
    for line in not_here[:SHOWN_NOT_APPLICABLE]:
        say("envsnap run", f"  not applicable: {line}")
    if len(not_here) > SHOWN_NOT_APPLICABLE:
        say("envsnap run", f"  ... and {len(not_here) - SHOWN_NOT_APPLICABLE} more not applicable")


def _say_hook(plan: Plan, events: list[dict[str, Any]]) -> None:
    if "torch" not in plan.hook_config:
        return
    torch_events = [e for e in events if e.get("event") == "torch"]
    if not torch_events:
        say("envsnap run", "the command never imported torch: no torch flag applied")
    for event in torch_events:
        flags = event.get("flags")
        for name, status in sorted(flags.items() if isinstance(flags, dict) else ()):
            if str(status).startswith("failed"):
                say("envsnap run", f"torch {name}: {status}")


def _capture_manifest(plan: Plan, run_dir: Path, source: str, quiet: bool) -> None:
    """Capture what conditions the run had: envsnap's own environment with only the checked
    values the run applied and the hook's variables, so the hook sets the same torch flags."""
    from envsnap.experiment.launch import environment_from

    target = run_dir / "manifest.json"
    argv = [sys.executable, "-m", "envsnap", "capture", "--torch", "-o", str(target),
            "--label", f"envsnap run --as {Path(source).name}"]  # fmt: skip
    env = environment_from(plan, os.environ)
    env["ENVSNAP_HOOK_LOG"] = str(run_dir / "hook-capture.jsonl")
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=MANIFEST_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        say("envsnap run", "the manifest capture timed out")
        return
    if done.returncode == 0 and not quiet:
        say("envsnap run", f"manifest of this run: {target}")
    elif done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        say("envsnap run", f"no manifest: {last}")
