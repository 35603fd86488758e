"""`envsnap diff`: rank the differences between two manifests (or one and this environment)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, fail_on_option, format_option, output_option, target_option

if TYPE_CHECKING:
    from envsnap.diff.cluster.io import Diffable


def load_side(path: str, earlier: Diffable | None = None) -> Diffable:
    """One side of a diff: a manifest, a cluster manifest, or a foreign record.

    A manifest is diffed as stored after validation (re-serialising the model would double the
    load time of large manifests). A cluster manifest is compared through its representative
    rank, with its deviating ranks reported too. Anything else (a collect_env report, a W&B or
    MLflow run) goes through the importers, which detect the format.

    With `earlier` (side A, when this is side B), package entries equal to A's are shared
    with A rather than held twice, and validated once: two large manifests of one
    environment then cost little more memory and time than one.
    """
    from envsnap.diff.cluster.io import Diffable, as_diffable
    from envsnap.errors import ManifestError
    from envsnap.manifest.model import looks_like_manifest, package_index, read_document

    reuse = package_index(earlier.document) if earlier is not None else None
    try:
        document = read_document(path, reuse=reuse)
    except ManifestError:
        document = None
    if document is not None and (looks_like_manifest(document) or "kind" in document):
        known = {id(entry) for entry in reuse.values()} if reuse else set()
        return as_diffable(document, path, known_valid=known)
    from envsnap.interop.importers import load_any

    manifest = load_any(path)
    return Diffable(manifest.to_document(), path)


def _current_document() -> dict[str, Any]:
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.config import discover_config
    from envsnap.capturing.run import capture_document

    return capture_document(config=discover_config(working_directory()))


@cli.command()
@click.argument("a", type=click.Path(dir_okay=True, allow_dash=False), required=False)
@click.argument("b", type=click.Path(dir_okay=True, allow_dash=False), required=False)
@target_option()
@format_option()
@fail_on_option()
@click.option(
    "--ignore",
    multiple=True,
    metavar="RULE|PATH-GLOB",
    help="Skip findings of this rule id or under this path (glob; repeatable).",
)
@click.option("--all", "show_all", is_flag=True, help="Also show bookkeeping (host, times, paths).")
@click.option("--explain", is_flag=True, help="Say why each finding ranks where it does.")
@output_option()
@click.option("--schema", is_flag=True, help="Print the report JSON Schema and exit.")
def diff(
    a: str | None,
    b: str | None,
    target: str,
    fmt: str,
    fail_on: str | None,
    ignore: tuple[str, ...],
    show_all: bool,
    explain: bool,
    output: str | None,
    schema: bool,
) -> int:
    """Rank the differences between manifests A and B by how likely they change results.

    With only A, compare A with this environment, captured now.
    """
    from envsnap.diff.report import report_schema_text

    if schema:
        emit(report_schema_text(), output)
        return 0
    if a is None:
        raise click.UsageError("missing manifest A")
    from envsnap.diff import diff_documents
    from envsnap.render.findings import RENDERERS

    side_a = load_side(a)
    side_b = load_side(b, side_a) if b is not None else None
    report = diff_documents(
        side_a.document,
        side_b.document if side_b is not None else _current_document(),
        target=target,  # type: ignore[arg-type]  # click.Choice guarantees a Target
        ignore=ignore,
        label_a=side_a.label,
        label_b=side_b.label if side_b is not None else "(this environment)",
    )
    if side_b is not None and (side_a.cluster is not None or side_b.cluster is not None):
        from envsnap.diff.cluster.io import with_cluster_findings

        report = with_cluster_findings(report, side_a, side_b)
    if fmt == "json" and not (output and output != "-"):
        from envsnap.render.findings import json_pieces

        # Written as it is made: the report of two large manifests that share nothing is
        # never held as one text and its encoded copy at once.
        for piece in json_pieces(report):
            click.echo(piece, nl=False)
    else:
        emit(RENDERERS[fmt](report, show_all=show_all, explain=explain), output)
    return 1 if fail_on is not None and report.reaches(fail_on) else 0
