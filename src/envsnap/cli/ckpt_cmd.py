"""`envsnap ckpt inspect`: audit a checkpoint for an exact resume, loading it only safely."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, fail_on_option, format_option, output_option, target_option


@cli.group("ckpt")
def ckpt_group() -> None:
    """Checkpoints: what they hold for an exact resume."""


@ckpt_group.command("inspect")
@click.argument("path", type=click.Path(exists=False))
@target_option(default="bitwise")
@fail_on_option(default="high")
@format_option(("table", "json"))
@output_option()
def ckpt_inspect(path: str, target: str, fail_on: str, fmt: str, output: str | None) -> int:
    """Report which resumption items PATH holds (file, directory or DCP checkpoint).

    Loads only with torch.load(weights_only=True) or safetensors headers; a checkpoint that
    needs arbitrary unpickling is refused (exit 2). Exit 1 when a finding reaches --fail-on.
    """
    from envsnap.render.checkpoint import render_checkpoint_json, render_checkpoint_table
    from envsnap.training.checkpoint import inspect_checkpoint

    report = inspect_checkpoint(path, target=target)  # type: ignore[arg-type]
    text = render_checkpoint_json(report) if fmt == "json" else render_checkpoint_table(report)
    emit(text, output)
    return 1 if report.reaches(fail_on) else 0
