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
@click.option(
    "--manifest",
    "manifest_path",
    metavar="MANIFEST",
    default=None,
    help="The run's envsnap manifest: its precision section tells whether the run used "
    "float16 loss scaling, and so whether the scaler's state is needed.",
)
@format_option(("table", "json"))
@output_option()
def ckpt_inspect(
    path: str, target: str, fail_on: str, manifest_path: str | None, fmt: str, output: str | None
) -> int:
    """Report which resumption items PATH holds (file, directory or DCP checkpoint).

    Only the state the run used is required: a loss scaler only with float16 loss scaling
    (known from the checkpoint itself, or from --manifest). Loads only with
    torch.load(weights_only=True) or safetensors headers; a checkpoint that needs arbitrary
    unpickling is refused (exit 2). Exit 1 when a finding reaches --fail-on.
    """
    from envsnap.render.checkpoint import render_checkpoint_json, render_checkpoint_table
    from envsnap.training.checkpoint import inspect_checkpoint

    precision = None
    if manifest_path is not None:
        from envsnap.manifest.model import load

        precision = load(manifest_path).to_document().get("precision")
    report = inspect_checkpoint(path, target=target, precision=precision)  # type: ignore[arg-type]
    text = render_checkpoint_json(report) if fmt == "json" else render_checkpoint_table(report)
    emit(text, output)
    return 1 if report.reaches(fail_on) else 0
