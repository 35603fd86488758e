"""The `envsnap` command line: parse, call the library, render, exit.

Exit codes: 0 ok; 1 a check failed (verify mismatch, --strict, --fail-on); 2 usage error or bad
input. Every error is one line on stderr; `--debug` shows the traceback instead.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext

import click

from envsnap._version import __version__
from envsnap.errors import EnvsnapError
from envsnap.gc_pause import paused_gc

# envsnap's models use no pydantic plugins, and looking for them reads the entry points of every
# installed distribution (about 50 ms of CPU per capture with 170 distributions). The CLI
# is a process of its own, so it switches the search off before the first model is built
# (pydantic's documented switch, pydantic/pydantic#8767), unless the user set it already.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


# Command name -> module that defines it. Modules load on first use, so `envsnap capture` never
# pays for the differ's, the importers' or the report models' imports.
COMMAND_MODULES: dict[str, str] = {
    "audit": "audit_cmd",
    "capture": "capture_cmd",
    "show": "inspect_cmd",
    "verify": "inspect_cmd",
    "schema": "inspect_cmd",
    "diff": "diff_cmd",
    "check": "check_cmd",
    "report": "report_cmd",
    "export": "export_cmd",
    "keygen": "sign_cmd",
    "sign": "sign_cmd",
    "import": "import_cmd",
    "fleet": "fleet_cmd",
    "cluster": "cluster_cmd",
    "trace": "trace_cmd",
    "ckpt": "ckpt_cmd",
    "run": "run_cmd",
    "bisect": "bisect_cmd",
}


# Commands that allocate a lot and live briefly: they run with cyclic garbage collection paused
# (see envsnap.gc_pause), which saved 8% of a capture's CPU time and 19% of a 5,000-package
# diff's (medians of interleaved runs; docs/benchmarks.md); `verify` of a 200k-package manifest
# takes 3.1 s of CPU with it running, 1.5 s without.
BRIEF_COMMANDS = frozenset({"capture", "diff", "show", "verify", "export"})


def _command_name(args: Sequence[str]) -> str | None:
    return next((arg for arg in args if not arg.startswith("-")), None)


def _invoke(args: list[str]) -> object:
    with paused_gc() if _command_name(args) in BRIEF_COMMANDS else nullcontext():
        return cli.main(args=args, prog_name="envsnap", standalone_mode=False)


class LazyGroup(click.Group):
    """A click group whose commands are imported when they are first looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            # Importing the module registers its commands on `cli`.
            importlib.import_module(f"envsnap.cli.{COMMAND_MODULES[cmd_name]}")
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="envsnap", message="%(prog)s %(version)s")
@click.option(
    "--debug",
    is_flag=True,
    help="Show tracebacks instead of one-line errors (also accepted after the command).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse a manifest whose digest does not match its content (edited after capture) "
    "instead of warning. Also ENVSNAP_STRICT=1.",
)
def cli(debug: bool, strict: bool) -> None:
    """Capture the conditions of an ML run, and rank the differences that can change results."""
    from envsnap.manifest.seal_check import refuse_mismatches

    refuse_mismatches(strict)  # set on every invocation: in-process callers run many


# click >= 8.2 signals a bare group invocation with its own UsageError subclass.
_NO_ARGS_IS_HELP: type[click.UsageError] | tuple[()] = getattr(
    click.exceptions, "NoArgsIsHelpError", ()
)


def _say_error(message: str) -> None:
    from envsnap.render.escape import terminal_text

    # One line, and file names or values inside it shown escaped, never sent to the terminal.
    text = terminal_text(" ".join(str(message).split()))
    click.echo(f"envsnap: error: {text}", err=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point. Never lets a traceback reach the user unless --debug is given."""
    debug, args = _take_debug(list(sys.argv[1:] if argv is None else argv))
    try:
        result = _invoke(args)
        code = result if isinstance(result, int) else 0
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        _say_error("aborted")
        code = 130
    except _NO_ARGS_IS_HELP as exc:  # bare `envsnap`: show the help, as --help would
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
        code = 0
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "envsnap"
        _say_error(f"{exc.format_message()} (see '{command} --help')")
        code = 2
    except click.ClickException as exc:
        _say_error(exc.format_message())
        code = 2
    except EnvsnapError as exc:
        if debug:
            raise
        _say_error(str(exc))
        code = exc.exit_code
    except KeyboardInterrupt:
        _say_error("interrupted")
        code = 130
    except BrokenPipeError:
        _silence_stdout()
        code = 0  # the reader went away (e.g. `| head`); nothing left to say
    except OSError as exc:  # e.g. -o into a read-only or missing place
        if debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        _say_error(f"{where}{exc.strerror or exc}")
        code = 2
    except Exception as exc:
        if debug:
            raise
        _say_error(_unexpected(exc))
        code = 2
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    sys.exit(code)


def _take_debug(args: list[str]) -> tuple[bool, list[str]]:
    """Whether --debug was given anywhere before `--`, and the arguments with it moved to the
    front, where the group's option parser takes it: `envsnap diff a b --debug` works too.

    After `--` the words belong to the command a subcommand runs (`envsnap run -- ...`)."""
    end = args.index("--") if "--" in args else len(args)
    head = [arg for arg in args[:end] if arg != "--debug"]
    if len(head) == end:
        return False, args
    return True, ["--debug", *head, *args[end:]]


def _unexpected(exc: BaseException) -> str:
    """The one line for a failure no check anticipated."""
    if isinstance(exc, RecursionError):  # a structure nested past every depth check
        return "input nested too deeply"
    if isinstance(exc, MemoryError):
        return "out of memory reading the input"
    return f"internal error: {type(exc).__name__}: {exc} (rerun with --debug)"


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
