"""Option parsing helpers shared by several commands."""

from __future__ import annotations

import click


def split_names(_ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]) -> list[str]:
    """Accept both `--only a,b` and `--only a --only b`."""
    names: list[str] = []
    for chunk in value:
        names.extend(part.strip() for part in chunk.split(",") if part.strip())
    return names


def emit(text: str, output: str | None) -> None:
    """Write command output to a file atomically, or to stdout."""
    if output and output != "-":
        from envsnap.atomic import write_atomic

        write_atomic(output, text.encode("utf-8"))
    else:
        click.echo(text, nl=not text.endswith("\n"))
