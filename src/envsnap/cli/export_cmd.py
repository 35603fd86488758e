"""`envsnap export`: a manifest in formats other tools ingest."""

from __future__ import annotations

import sys

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, emit_data, emit_data_pieces, output_option


@cli.group()
def export() -> None:
    """Export a manifest to another format."""


@export.command("cyclonedx")
@click.argument("manifest", type=click.Path(dir_okay=True))
@output_option()
def export_cyclonedx(manifest: str, output: str | None) -> int:
    """CycloneDX 1.6 JSON: packages, GPU, driver, data and run settings."""
    from envsnap.interop.export.cyclonedx import cyclonedx_pieces
    from envsnap.manifest.lean import load_lean

    emit_data_pieces(cyclonedx_pieces(load_lean(manifest)), output, json=True)
    return 0


@export.command("requirements")
@click.argument("manifest", type=click.Path(dir_okay=True))
@click.option("-o", "--output", metavar="FILE", help="Write here (atomically) instead of stdout.")
def export_requirements(manifest: str, output: str | None) -> int:
    """requirements.txt with exact pins that reinstalls the recorded packages (pip install -r).

    Archives installed from a URL keep their recorded hash; editable, local-directory and
    unrecoverable installs are listed as comments that say why."""
    from envsnap.interop.export.requirements import to_requirements
    from envsnap.manifest.lean import load_lean

    emit_data(to_requirements(load_lean(manifest)), output)
    return 0


@export.command("conda")
@click.argument("manifest", type=click.Path(dir_okay=True))
@click.option("-o", "--output", metavar="FILE", help="Write here (atomically) instead of stdout.")
def export_conda(manifest: str, output: str | None) -> int:
    """environment.yml (conda env create -f) with the recorded conda packages, their channels
    where known, and every other distribution under pip."""
    from envsnap.interop.export.conda import to_environment_yml
    from envsnap.manifest.lean import load_lean

    emit_data(to_environment_yml(load_lean(manifest)), output)
    return 0


@export.command("patch")
@click.argument("manifest", type=click.Path(dir_okay=True))
@output_option()
def export_patch(manifest: str, output: str | None) -> int:
    """The uncommitted changes to tracked files at capture, for `git apply`.

    On a checkout of the recorded commit (code.commit), `git apply` restores the tracked files
    exactly. The manifest keeps the patch up to 256 KiB; untracked files are not part of it."""
    from envsnap.interop.export.patch import patch_of, print_patch
    from envsnap.manifest.model import load
    from envsnap.render.escape import terminal_text

    loaded = load(manifest)
    text = patch_of(loaded, manifest)
    note = loaded.code.unknown.get("patch") if loaded.code is not None else None
    if note:  # a kept patch with a note had secrets redacted: it will not apply as is
        click.echo(f"envsnap: warning: {terminal_text(note)}", err=True)
    if output and output != "-":
        emit(text, output)
    else:  # exact bytes to a file or a pipe, escaped on a terminal
        print_patch(text, sys.stdout)
    return 0
