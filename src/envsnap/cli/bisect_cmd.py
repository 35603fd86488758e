"""`envsnap bisect A.json B.json --metric REGEX -- CMD`: find the differences that change a metric."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from envsnap.cli import cli
from envsnap.cli.options import emit
from envsnap.cli.run_cmd import (
    confirmed,
    install_options,
    load_manifest_document,
    new_work_dir,
    package_options,
    require_command,
    say_plan,
    yes_option,
)

if TYPE_CHECKING:
    from envsnap.experiment.bisect import BisectReport, Candidate


@cli.command()
@click.argument("a", metavar="A.json")
@click.argument("b", metavar="B.json")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--metric", "metric", metavar="REGEX",
              help="Regex over the run's stdout (last match; group 1 if it has one).")  # fmt: skip
@click.option("--metric-file", metavar="PATH",
              help="File the run writes its metric to (REGEX applies to it if given).")  # fmt: skip
@click.option("--tol", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Absolute tolerance: metrics this close count as equal.")  # fmt: skip
@click.option("--max-runs", type=click.IntRange(min=3), default=64, show_default=True,
              help="Most runs of CMD, the reproduce check included.")  # fmt: skip
@click.option("--budget", "budget_s", type=click.FloatRange(min=1), default=3600.0,
              show_default=True, help="Time budget in seconds for the whole search.")  # fmt: skip
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=600.0,
              show_default=True, help="Kill one run after this many seconds.")  # fmt: skip
@click.option("--work-dir", metavar="DIR", help="Where every run's output is kept.")
@package_options
@click.option("-f", "--format", "fmt", type=click.Choice(("table", "json")), default="table",
              show_default=True, help="Output format.")  # fmt: skip
@click.option("-o", "--output", metavar="FILE", help="Write the report here instead of stdout.")
@yes_option
def bisect(
    a: str,
    b: str,
    command: tuple[str, ...],
    metric: str | None,
    metric_file: str | None,
    tol: float,
    max_runs: int,
    budget_s: float,
    timeout_s: float,
    work_dir: str | None,
    packages: bool,
    find_links: tuple[str, ...],
    no_index: bool,
    cache_dir: str | None,
    fmt: str,
    output: str | None,
    yes: bool,
) -> int:
    """Find which applicable differences between A and B change CMD's metric.

    Runs CMD under A's and B's conditions, checks the discrepancy reproduces and is not noise,
    then delta-debugs the differences (in the differ's rank order) down to the smallest set that
    turns A's metric into B's. Only the environment variables of envsnap's table (with checked
    values) are taken from either manifest; the plan for each is printed first, then confirmed
    on the terminal (or by --yes). Exit 0 when confirmed, 1 when it does not reproduce.
    """
    from envsnap.experiment.bisect import BisectOptions
    from envsnap.experiment.bisect import bisect as run_bisect
    from envsnap.experiment.metric import compile_metric

    require_command(command)
    if metric is None and metric_file is None:
        raise click.UsageError("give --metric REGEX or --metric-file PATH")
    try:
        pattern = compile_metric(metric) if metric is not None else None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    doc_a, doc_b = load_manifest_document(a), load_manifest_document(b)
    packaged = install_options(packages, find_links, no_index, cache_dir)
    _say_plans({a: doc_a, b: doc_b}, packages=packaged is not None)
    if not confirmed("envsnap bisect", yes, "Run the command under these conditions?"):
        return 1
    options = BisectOptions(
        argv=command,
        work_dir=new_work_dir(work_dir, "bisect").resolve(),
        pattern=pattern,
        metric_file=Path(metric_file).resolve() if metric_file else None,
        tol=tol,
        max_runs=max_runs,
        budget_s=budget_s,
        timeout_s=timeout_s,
        packages=packaged,
        base_env=dict(os.environ),
    )
    report = run_bisect(doc_a, doc_b, options)
    text = report.model_dump_json(indent=2) + "\n" if fmt == "json" else render(report)
    emit(text, output)
    return 0 if report.verdict == "confirmed" else 1


def _say_plans(documents: dict[str, dict[str, Any]], *, packages: bool) -> None:
    """Each side's plan: the runs apply A's conditions with some of B's, never more."""
    from envsnap.experiment.conditions import conditions_of
    from envsnap.experiment.launch import plan_for

    for source, document in documents.items():
        plan = plan_for(conditions_of(document), packages=packages, base_env=os.environ)
        say_plan("envsnap bisect", source, plan)


def render(report: BisectReport) -> str:
    """The report as text for a terminal; manifest text in it is shown escaped."""
    from envsnap.render.escape import terminal_text

    return "".join(f"{terminal_text(line)}\n" for line in _report_lines(report))


def _report_lines(report: BisectReport) -> list[str]:
    lines = [f"envsnap bisect: {report.summary}"]
    if report.metric_a is not None:
        repeat = "" if report.metric_a_repeat is None else f" (repeat {report.metric_a_repeat!r})"
        lines.append(
            f"metric: A {report.metric_a!r}{repeat}, B {report.metric_b!r}, "
            f"tolerance {report.tol:g}"
        )
    by_key = {c.key: c for c in report.candidates}
    for title, keys in (("confirmed", report.confirmed), ("no effect", report.no_effect)):
        if keys:
            lines.append(f"{title}:")
            lines.extend(_candidate_line(by_key[key]) for key in keys)
    if report.verdict != "confirmed" and report.candidates:
        lines.append("applicable differences:")
        lines.extend(_candidate_line(c) for c in report.candidates)
    if report.not_applicable:
        lines.append(f"not applicable here ({len(report.not_applicable)}):")
        lines.extend(f"  #{n.rank} {n.path}: {n.reason}" for n in report.not_applicable[:10])
        if len(report.not_applicable) > 10:
            lines.append(f"  ... and {len(report.not_applicable) - 10} more")
    seconds = sum(run.seconds for run in report.runs)
    where = Path(report.work_dir)
    if where.is_relative_to(Path.cwd()):
        where = where.relative_to(Path.cwd())
    lines.append(f"runs: {len(report.runs)} in {seconds:.1f} s; outputs in {where}")
    for run in report.runs:
        mark = {True: "B", False: "-", None: " "}[run.reproduces]
        lines.append(f"  {run.index:>3} {mark} {run.metric!r:<24} {run.label}")
    return lines


def _candidate_line(candidate: Candidate) -> str:
    rank = f"#{candidate.rank} " if candidate.rank is not None else ""
    return f"  {candidate.key}: {candidate.a} -> {candidate.b} ({rank}{candidate.finding or ''})"
