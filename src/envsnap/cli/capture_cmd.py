"""`envsnap capture`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from envsnap.cli import cli
from envsnap.cli.options import emit_data, output_option, split_names

if TYPE_CHECKING:
    from envsnap.capturing.config import CaptureConfig


@cli.command()
@output_option()
@click.option("--label", metavar="TEXT", help="Free-text label stored in run.label.")
@click.option(
    "--only", multiple=True, callback=split_names, metavar="A,B", help="Run only these collectors."
)
@click.option(
    "--skip",
    multiple=True,
    callback=split_names,
    metavar="A,B",
    help="Do not run these collectors.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Validate the manifest before writing it; exit 1 if any collector failed.",
)
@click.option(
    "--torch", "import_torch", is_flag=True, help="Import torch to record its runtime flags."
)
@click.option(
    "--probe",
    is_flag=True,
    help="Run the numerics probe (imports torch): digests of fixed ops on the CPU and GPU.",
)
@click.option(
    "--budget",
    type=click.FloatRange(min=0.1),
    metavar="SECONDS",
    help="Total time budget (default 10).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (default: nearest envsnap.toml or [tool.envsnap]).",
)
@click.option(
    "--data",
    "data_paths",
    multiple=True,
    metavar="PATH",
    help="Hash this data file or directory (repeatable).",
)
@click.option(
    "--data-mode",
    type=click.Choice(["full", "sample", "stat"]),
    help="full: every byte; sample: head/middle/tail blocks + size; stat: names, sizes, mtimes.",
)
@click.option(
    "--data-budget",
    type=click.FloatRange(min=0.1),
    metavar="SECONDS",
    help="Time limit for data hashing (default 600).",
)
@click.option("--tokenizer", "tokenizer_path", metavar="PATH", help="Tokenizer directory.")
@click.option(
    "--template",
    "template_paths",
    multiple=True,
    metavar="PATH",
    help="Template file (repeatable).",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="SECTION.FIELD=VALUE",
    help="Override one declared value, e.g. parallel.grad_accum=8 (repeatable).",
)
def capture(
    output: str | None,
    label: str | None,
    only: list[str],
    skip: list[str],
    strict: bool,
    import_torch: bool,
    probe: bool,
    budget: float | None,
    config_path: Path | None,
    data_paths: tuple[str, ...],
    data_mode: str | None,
    data_budget: float | None,
    tokenizer_path: str | None,
    template_paths: tuple[str, ...],
    assignments: tuple[str, ...],
) -> int:
    """Record the conditions of this environment as a JSON manifest."""
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.config import apply_sets, discover_config, load_config
    from envsnap.capturing.inputs import item_errors
    from envsnap.capturing.run import capture_document, validated
    from envsnap.manifest.canonical import pretty_text

    config = load_config(config_path) if config_path else discover_config(working_directory())
    changes: dict[str, object] = {"import_torch": import_torch or probe, "probe": probe}
    if budget is not None:
        changes["budget_s"] = budget
    config = config.with_overrides(**changes)
    config = _with_flags(config, data_paths, data_mode, data_budget, tokenizer_path, template_paths)
    config = apply_sets(config, assignments)
    document = capture_document(config=config, only=only or None, skip=skip or None, label=label)
    if strict:
        # Captures trust their own records (the test suite validates every collector's);
        # --strict also checks this one against the schema, as a reader will.
        validated(document)
    emit_data(pretty_text(document), output, json=True)
    failed = sorted(
        name for name, record in document["collectors"].items() if record["status"] == "error"
    )
    problems = item_errors(document)
    if problems:
        from envsnap.render.escape import terminal_text  # loaded only to print problems

        for problem in problems:
            click.echo(f"envsnap: {terminal_text(problem)}", err=True)
    if failed:
        click.echo(f"envsnap: collectors failed: {', '.join(failed)}", err=True)
    return 1 if strict and (failed or problems) else 0


def _with_flags(
    config: CaptureConfig,
    data_paths: tuple[str, ...],
    data_mode: str | None,
    data_budget: float | None,
    tokenizer_path: str | None,
    template_paths: tuple[str, ...],
) -> CaptureConfig:
    """Add the --data/--tokenizer/--template flags to what the config file declared."""
    from envsnap.capturing.config import with_declared

    data: dict[str, object] = {}
    if data_paths:
        data["paths"] = [*config.declared.get("data", {}).get("paths", []), *data_paths]
    if data_mode:
        data["mode"] = data_mode
    if data_budget is not None:
        data["budget_s"] = data_budget
    if data:
        config = with_declared(config, "data", **data)
    if tokenizer_path:
        config = with_declared(config, "tokenizer", path=tokenizer_path)
    if template_paths:
        paths = [*config.declared.get("templates", {}).get("paths", []), *template_paths]
        config = with_declared(config, "templates", paths=paths)
    return config
