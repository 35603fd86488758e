"""`envsnap fleet`: equivalence classes of many manifests, and the odd ones out."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, format_option, output_option, target_option


@cli.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(allow_dash=False))
@format_option()
@target_option()
@output_option()
@click.option("--strict", is_flag=True, help="Exit 1 when the manifests are not all equivalent.")
def fleet(inputs: tuple[str, ...], fmt: str, target: str, output: str | None, strict: bool) -> int:
    """Group manifests (FILES, or DIRs searched for *.json below them) by result-relevant content.

    The largest class is the reference; every other class lists what sets it apart, and its
    members are the odd ones out. Cluster manifests count once per rank.
    """
    from envsnap.diff.fleet import fleet as run_fleet
    from envsnap.render.fleet import FLEET_RENDERERS

    report = run_fleet(inputs, target=target)  # type: ignore[arg-type]
    emit(FLEET_RENDERERS[fmt](report), output)
    return 1 if strict and report.odd_ones_out else 0
