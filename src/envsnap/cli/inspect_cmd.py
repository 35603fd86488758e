"""`envsnap show`, `envsnap verify` and `envsnap schema`: reading manifests."""

from __future__ import annotations

import click

from envsnap.cli import cli


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False))
def show(file: str) -> int:
    """Print a readable summary of a manifest."""
    from envsnap.manifest import load
    from envsnap.render.summary import render_summary

    click.echo(render_summary(load(file), color=None), nl=False)
    return 0


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False))
def verify(file: str) -> int:
    """Check that a manifest's digest matches its content (exit 1 if it was altered)."""
    from envsnap.manifest import manifest_from_document, read_document, verify_document

    document = read_document(file)
    manifest_from_document(document, file)
    matches, recorded, recomputed = verify_document(document)
    if matches:
        click.echo(f"OK: {file}: digest {recomputed}")
        return 0
    if recorded is None:
        click.echo(f"FAILED: {file}: no digest recorded; content digest is {recomputed}", err=True)
    else:
        click.echo(
            f"FAILED: {file}: content was altered (recorded {recorded}, content {recomputed})",
            err=True,
        )
    return 1


@cli.command()
def schema() -> int:
    """Print the manifest JSON Schema."""
    from envsnap.manifest import schema_text

    click.echo(schema_text(), nl=False)
    return 0
