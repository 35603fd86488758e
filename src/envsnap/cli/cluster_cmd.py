"""`envsnap cluster`: one cluster manifest from per-rank manifests (srun on N nodes)."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import emit_data, output_option, target_option


@cli.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(allow_dash=False))
@target_option()
@output_option()
def cluster(inputs: tuple[str, ...], target: str, output: str | None) -> int:
    """Merge per-rank manifests (FILES, or DIRs searched for *.json) into one cluster manifest.

    For jobs without a torch.distributed group: `srun envsnap capture -o run/rank-$SLURM_PROCID.json`
    on every node, then `envsnap cluster run/ -o cluster.json`. Each file's rank is its
    parallel rank, RANK or SLURM_PROCID; tasks of the recorded task count that wrote no file are
    recorded as failed.
    """
    from envsnap.diff.cluster.io import assemble_files
    from envsnap.diff.fleet import manifest_paths

    merged = assemble_files(manifest_paths(inputs), target=target)  # type: ignore[arg-type]
    emit_data(merged.to_json(), output, json=True)
    return 0
