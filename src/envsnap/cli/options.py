"""Option parsing helpers shared by several commands."""

from __future__ import annotations

from collections.abc import Callable
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
    """Write command output to a file atomically, or to stdout."""
    if output and output != "-":
        from envsnap.files.atomic import write_atomic

        write_atomic(output, text.encode("utf-8"))
    else:
        click.echo(text, nl=not text.endswith("\n"))


# Options shared by the commands that print a findings report (diff, check, fleet, ...).
# envsnap.diff.report is imported inside each decorator: only those commands' modules pay for it.
def target_option(func: F) -> F:
    """`--target bitwise|close|conclusion`, default close."""
    from envsnap.diff.report import TARGETS

    return click.option(
        "--target",
        type=click.Choice(TARGETS),
        default="close",
        show_default=True,
        help="Reproduction target the severities are for.",
    )(func)


def format_option(func: F) -> F:
    """`-f/--format table|markdown|json`, default table."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(REPORT_FORMATS),
        default="table",
        show_default=True,
        help="Output format.",
    )(func)


def fail_on_option(func: F) -> F:
    """`--fail-on SEVERITY`: exit 1 when a finding reaches it."""
    from envsnap.diff.report import SEVERITIES

    return click.option(
        "--fail-on",
        type=click.Choice(SEVERITIES),
        metavar="SEVERITY",
        help="Exit 1 when any finding reaches this severity (critical, high, medium, low, info).",
    )(func)
