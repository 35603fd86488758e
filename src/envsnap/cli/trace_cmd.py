"""`envsnap trace diff`: compare two step traces and diagnose the first divergence."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, format_option, output_option

FORMATS = ("table", "json")


@cli.group("trace")
def trace_group() -> None:
    """Step traces recorded with envsnap.training.trace.TraceRecorder."""


@trace_group.command("diff")
@click.argument("trace_a", metavar="A.jsonl", type=click.Path(dir_okay=False))
@click.argument("trace_b", metavar="B.jsonl", type=click.Path(dir_okay=False))
@click.option(
    "--mode",
    type=click.Choice(["bitwise", "close"]),
    default="bitwise",
    show_default=True,
    help="bitwise: any difference diverges; close: numbers may differ within --rtol/--atol.",
)
@click.option("--rtol", type=float, default=1e-5, show_default=True, help="Relative tolerance.")
@click.option("--atol", type=float, default=1e-8, show_default=True, help="Absolute tolerance.")
@format_option(FORMATS)
@output_option()
def trace_diff(
    trace_a: str, trace_b: str, mode: str, rtol: float, atol: float, fmt: str, output: str | None
) -> int:
    """Align two traces by update count and report the first divergence.

    Exit 0 when the traces agree, 1 when they diverge, 2 on bad input.
    """
    from envsnap.render.trace import render_trace_json, render_trace_table
    from envsnap.training.trace import compare_traces, read_trace

    result = compare_traces(
        read_trace(trace_a),
        read_trace(trace_b),
        mode="close" if mode == "close" else "bitwise",
        rtol=rtol,
        atol=atol,
    )
    text = render_trace_json(result) if fmt == "json" else render_trace_table(result)
    emit(text, output)
    return 0 if result.agree else 1
