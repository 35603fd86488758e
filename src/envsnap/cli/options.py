"""Option parsing helpers shared by several commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
REPORT_FORMATS = ("table", "markdown", "json")


def split_names(_ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]) -> list[str]:
    """Accept both `--only a,b` and `--only a --only b`."""
    names: list[str] = []
    for chunk in value:
        names.extend(part.strip() for part in chunk.split(",") if part.strip())
    return names


def emit(text: str, output: str | None) -> None:
    """Write rendered output (values already escaped) to a file atomically, or to stdout."""
    if output and output != "-":
        from envsnap.files.atomic import write_atomic

        write_atomic(output, text.encode("utf-8"))
    else:
        click.echo(text, nl=not text.endswith("\n"))


def emit_data(text: str, output: str | None, *, json: bool = False) -> None:
    """Write data that carries a record's raw values (a manifest, an export) to a file
    atomically, or to stdout: exact bytes to a pipe, escaped on a terminal (`json_text` keeps
    JSON the same value; other text has its control characters shown, line by line)."""
    import sys

    from envsnap.render.escape import json_text, terminal_lines, write_exact

    if output and output != "-":
        emit(text, output)
        return
    write_exact(text if text.endswith("\n") else text + "\n", sys.stdout,
                json_text if json else terminal_lines)  # fmt: skip


def emit_data_pieces(pieces: Iterable[str], output: str | None, *, json: bool = False) -> None:
    """`emit_data` for text made in pieces: to a pipe each is written as it is made, so a
    200k-package export is never one text and its encoded copy."""
    import sys

    if (output and output != "-") or sys.stdout.isatty():
        emit_data("".join(pieces), output, json=json)
        return
    sys.stdout.flush()
    buffer = sys.stdout.buffer
    for piece in pieces:
        buffer.write(piece.encode("utf-8", "backslashreplace"))
    buffer.flush()


# Options shared by several commands, each declared once. envsnap.diff.report is imported
# inside the factories: only the modules of the commands that use them pay for it.
OUTPUT_HELP = "Write to FILE (atomically) instead of stdout."


def output_option(help: str = OUTPUT_HELP) -> Callable[[F], F]:
    """`-o/--output FILE`."""
    return click.option("-o", "--output", metavar="FILE", default=None, help=help)


def target_option(default: str = "close") -> Callable[[F], F]:
    """`--target bitwise|close|conclusion`."""
    from envsnap.diff.report import TARGETS

    return click.option(
        "--target",
        type=click.Choice(TARGETS),
        default=default,
        show_default=True,
        help="Reproduction target the severities are for.",
    )


def format_option(
    choices: Sequence[str] = REPORT_FORMATS, default: str = "table"
) -> Callable[[F], F]:
    """`-f/--format`, one of `choices`."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=default,
        show_default=True,
        help="Output format.",
    )


def fail_on_option(default: str | None = None) -> Callable[[F], F]:
    """`--fail-on SEVERITY|RULE`: exit 1 when a finding reaches the severity, or when a finding
    of the rule (current or former id) is reported."""
    return click.option(
        "--fail-on",
        metavar="SEVERITY|RULE",
        callback=_check_fail_on,
        default=default,
        show_default=default is not None,
        help="Exit 1 when any finding reaches this severity (critical, high, medium, low, "
        "info), or when a finding of this rule id is reported.",
    )


def _check_fail_on(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from envsnap.diff.report import SEVERITIES

    if value is None or value in SEVERITIES or "." in value:
        return value
    raise click.BadParameter(
        f"{value!r} is neither a severity ({', '.join(SEVERITIES)}) nor a rule id"
    )
