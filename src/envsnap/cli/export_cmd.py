"""`envsnap export`: a manifest in formats other tools ingest."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, output_option


@cli.group()
def export() -> None:
    """Export a manifest to another format."""


@export.command("cyclonedx")
@click.argument("manifest", type=click.Path(dir_okay=True))
@output_option()
def export_cyclonedx(manifest: str, output: str | None) -> int:
    """CycloneDX 1.6 JSON: packages, GPU, driver, data and run settings."""
    from envsnap.interop.export.cyclonedx import to_cyclonedx_json
    from envsnap.manifest.model import load

    emit(to_cyclonedx_json(load(manifest)), output)
    return 0
