"""`envsnap keygen` and `envsnap sign`: detached signatures for audits."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import output_option


@cli.command()
@click.argument("private_key", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Replace an existing key pair.")
def keygen(private_key: str, force: bool) -> int:
    """Create an Ed25519 key pair: PRIVATE_KEY (mode 0600) and PRIVATE_KEY.pub.

    An existing key is kept unless --force: replacing it orphans the signatures it made.
    """
    from envsnap.interop.signing import generate_key

    private, public = generate_key(private_key, force=force)
    from envsnap.render.escape import terminal_text

    click.echo(f"private key: {terminal_text(private)}\npublic key:  {terminal_text(public)}")
    return 0


@cli.command()
@click.argument("manifest", type=click.Path(dir_okay=True))
@click.option(
    "--key",
    "key_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="Ed25519 private key (PEM).",
)
@output_option(help="Write the signature to FILE (default: MANIFEST.sig).")
def sign(manifest: str, key_path: str, output: str | None) -> int:
    """Write a detached signature for MANIFEST. Refuses a manifest whose digest does not match."""
    from envsnap.interop.signing import sign_digest, write_signature
    from envsnap.manifest.model import manifest_from_document, read_document
    from envsnap.manifest.sealed import verify_document
    from envsnap.render.escape import terminal_text

    document = read_document(manifest)
    manifest_from_document(document, manifest)
    matches, _recorded, recomputed = verify_document(document)
    if not matches:
        click.echo(
            f"envsnap: error: {terminal_text(manifest)}: digest does not match its content; not signing",
            err=True,
        )
        return 1
    path = write_signature(sign_digest(recomputed, key_path), output or f"{manifest}.sig")
    click.echo(f"signed {terminal_text(manifest)} ({recomputed}) -> {terminal_text(path)}")
    return 0
