"""`envsnap report`: one self-contained audit document."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, format_option, output_option, target_option
from envsnap.diff.report import Target


@cli.command()
@click.argument("manifest", type=click.Path(dir_okay=True))
@click.option(
    "--against",
    metavar="OTHER",
    type=click.Path(dir_okay=True),
    help="Also rank the differences against this manifest.",
)
@format_option(("html", "markdown"), default="html")
@target_option()
@output_option()
def report(manifest: str, against: str | None, fmt: str, target: str, output: str | None) -> int:
    """Write an audit document for MANIFEST (check findings, known bugs that apply, optional
    diff, integrity)."""
    from envsnap.audit.database import load as load_advisories
    from envsnap.audit.sources import audit_parsed
    from envsnap.diff import diff_manifests
    from envsnap.diff.check.runner import check_document
    from envsnap.interop.importers import load_any
    from envsnap.render.audit import AUDIT_RENDERERS, AuditInputs

    subject = load_any(manifest)
    chosen = cast(Target, target)
    document = subject.to_document()
    check = check_document(document, chosen, label=manifest)
    advisories = audit_parsed(document, manifest, load_advisories(), chosen, ())
    diff = None
    if against:
        diff = diff_manifests(
            load_any(against), subject, target=chosen, label_a=against, label_b=manifest
        )
    signature = f"{manifest}.sig" if Path(f"{manifest}.sig").is_file() else None
    inputs = AuditInputs(
        manifest=subject,
        source=manifest,
        check=check,
        advisories=advisories,
        diff=diff,
        against=against,
        signature=signature,
    )
    emit(AUDIT_RENDERERS[fmt](inputs), output)
    return 0
