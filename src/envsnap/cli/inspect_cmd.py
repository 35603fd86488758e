"""`envsnap show`, `envsnap verify` and `envsnap schema`: reading manifests."""

from __future__ import annotations

import click

from envsnap.cli import cli
from envsnap.cli.options import format_option, split_names

SHOW_FORMATS = ("table", "markdown", "json")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False))
@click.option(
    "-s",
    "--section",
    "sections",
    multiple=True,
    callback=split_names,
    metavar="NAME",
    help="Show only this section (repeatable, or comma-separated): code, python, packages, ...",
)
@click.option("--packages", is_flag=True, help="Also list every installed distribution.")
@format_option(SHOW_FORMATS)
def show(file: str, sections: list[str], packages: bool, fmt: str) -> int:
    """Print a readable summary of a manifest."""
    from envsnap.manifest.model import load
    from envsnap.manifest.sections import SECTION_MODELS

    unknown = [name for name in sections if name not in SECTION_MODELS]
    if unknown:
        raise click.BadParameter(
            f"no section {', '.join(unknown)}; sections: {', '.join(SECTION_MODELS)}",
            param_hint="'--section'",
        )
    if fmt == "markdown":
        from envsnap.render.bug_report import render_bug_report

        click.echo(render_bug_report(load(file), sections), nl=False)
    elif fmt == "json":
        from envsnap.manifest.canonical import pretty_text

        document = load(file).to_document()
        chosen = sections or [name for name in SECTION_MODELS if document.get(name) is not None]
        click.echo(pretty_text({name: document.get(name) for name in chosen}), nl=False)
    else:
        from envsnap.manifest.lean import load_lean
        from envsnap.render.summary import render_summary

        # No model per package: the summary counts them, --packages lists the entries.
        text = render_summary(load_lean(file), color=None, sections=sections, packages=packages)
        click.echo(text, nl=False)
    return 0


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False))
@click.option(
    "--key",
    "key_path",
    metavar="PUBLIC_KEY",
    help="Also check the detached signature with this Ed25519 public key (PEM).",
)
@click.option(
    "--signature", "signature_path", metavar="SIG", help="Signature file (default: FILE.sig)."
)
def verify(file: str, key_path: str | None, signature_path: str | None) -> int:
    """Check that a manifest's digest matches its content (exit 1 if it was altered).

    With --key, also check that its signature was made with that key over this content.
    """
    from envsnap.manifest.model import check_document, read_document
    from envsnap.manifest.sealed import verify_document

    if signature_path is not None and key_path is None:
        raise click.UsageError("--signature needs --key PUBLIC_KEY to be checked")
    document = read_document(file, check_digest=False)
    check_document(document, file)  # as strict as the model, without one object per package
    signature = None
    if key_path is not None:
        from envsnap.interop.signing import read_signature

        signature = read_signature(signature_path or f"{file}.sig")
    from envsnap.render.escape import terminal_text

    matches, recorded, recomputed = verify_document(document)
    if not matches:
        if recorded is None:
            click.echo(
                f"FAILED: {terminal_text(file)}: no digest recorded; content digest is {recomputed}",
                err=True,
            )
        else:
            click.echo(
                f"FAILED: {terminal_text(file)}: content was altered (recorded {terminal_text(recorded)}, content {recomputed})",
                err=True,
            )
        return 1
    if signature is not None and key_path is not None:
        from envsnap.interop.signing import verify_signature

        problem = verify_signature(signature, recomputed, key_path)
        if problem is not None:
            click.echo(f"FAILED: {terminal_text(file)}: {terminal_text(problem)}", err=True)
            return 1
        click.echo(
            f"OK: {terminal_text(file)}: digest {recomputed}; signature by {terminal_text(signature['public_key'])} is valid"
        )
        return 0
    click.echo(f"OK: {terminal_text(file)}: digest {recomputed}")
    return 0


@cli.command()
def schema() -> int:
    """Print the manifest JSON Schema."""
    from envsnap.manifest.model import schema_text

    click.echo(schema_text(), nl=False)
    return 0
