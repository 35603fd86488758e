"""`envsnap audit`: check manifests against the database of known silent-correctness bugs.

Exit codes follow pip-audit: 0 when no advisory applies (or none reaches --fail-on), 1 when one
does, 2 for bad input. 'Possible' findings (a fact the manifest lacks) never fail the run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import click

from envsnap.cli import cli
from envsnap.cli.options import (
    emit,
    fail_on_option,
    format_option,
    output_option,
    target_option,
)

if TYPE_CHECKING:
    from envsnap.audit.database import Database
    from envsnap.audit.results import AuditResult
    from envsnap.diff.report import Severity, Target


def _results(
    paths: tuple[str, ...],
    db: str | None,
    database: Database,
    target: Target,
    ignore: tuple[str, ...],
    jobs: int | None,
) -> Iterator[AuditResult]:
    from envsnap.audit.many import audit_many
    from envsnap.audit.sources import audit_path, expand

    if len(paths) == 1 and not os.path.isdir(paths[0]):
        yield audit_path(paths[0], database, target, ignore)  # bad input: one line, exit 2
        return
    yield from audit_many(expand(paths), db_dir=db, target=target, ignore=ignore, jobs=jobs)


def _failed(result: AuditResult, fail_on: Severity | None) -> bool:
    return result.reaches(fail_on) if fail_on else bool(result.affected())


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=True))
@format_option(("table", "markdown", "json", "sarif"))
@target_option()
@fail_on_option()
@click.option("--ignore", multiple=True, metavar="ID", help="Skip this advisory (repeatable).")
@click.option("--db", metavar="DIR", type=click.Path(file_okay=False), help="Advisory directory.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: CPUs).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    metavar="SECONDS",
    help="Give up (exit 2) when the whole audit takes longer.",
)
@output_option()
def audit(
    paths: tuple[str, ...],
    fmt: str,
    target: str,
    fail_on: str | None,
    ignore: tuple[str, ...],
    db: str | None,
    jobs: int | None,
    timeout: float,
    output: str | None,
) -> int:
    """Report known numerics bugs and silent default changes that apply to manifests.

    PATHS are manifests, cluster manifests, or directories of them (searched for *.json).
    """
    from envsnap.audit import deadline
    from envsnap.audit.database import load
    from envsnap.audit.render import json_lines, render_markdown, render_table
    from envsnap.audit.sarif import render_sarif

    chosen, threshold = cast("Target", target), cast("Severity | None", fail_on)
    with deadline.bounded(timeout):  # loading the database counts too
        database = load(db)  # a bad --db fails here, before any manifest is read
        state = {"failed": False, "errors": 0}

        def tracked() -> Iterator[AuditResult]:
            for result in _results(paths, db, database, chosen, ignore, jobs):
                if result.error:
                    state["errors"] += 1
                    click.echo(f"envsnap: error: {' '.join(result.error.split())}", err=True)
                state["failed"] = state["failed"] or _failed(result, threshold)
                yield result

        if fmt == "json" and not output:
            for piece in json_lines(tracked()):
                sys.stdout.write(piece)
        else:
            results = list(tracked())
            text = {
                "table": lambda: render_table(results),
                "markdown": lambda: render_markdown(results),
                "json": lambda: "".join(json_lines(results)),
                "sarif": lambda: render_sarif(results, database),
            }[fmt]()
            emit(text, output)
        return 2 if state["errors"] else 1 if state["failed"] else 0
