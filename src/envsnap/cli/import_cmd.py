"""`envsnap import FORMAT FILE`: convert a collect_env report, W&B run or MLflow run."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit_data, output_option
from envsnap.interop.importers import FORMATS, import_record


@cli.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMATS))
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=True, path_type=str))
@output_option()
def import_command(fmt: str, path: str, output: str | None) -> None:
    """Convert another tool's record into an envsnap manifest.

    FORMAT is collect-env (the text `python -m torch.utils.collect_env` prints), wandb (a
    wandb-metadata.json or its run directory), mlflow (a local file-store run directory) or
    auto. What the record does not state stays unknown in the manifest, with the reason.
    """
    manifest = import_record(path, fmt)
    emit_data(manifest.to_json(), output, json=True)
