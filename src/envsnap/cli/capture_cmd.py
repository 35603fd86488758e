"""`envsnap capture`."""

from __future__ import annotations

from pathlib import Path

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, split_names


@cli.command()
@click.option(
    "-o", "--output", metavar="FILE", help="Write the manifest here (atomically) instead of stdout."
)
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
@click.option("--strict", is_flag=True, help="Exit 1 if any collector failed.")
@click.option(
    "--torch", "import_torch", is_flag=True, help="Import torch to record its runtime flags."
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
def capture(
    output: str | None,
    label: str | None,
    only: list[str],
    skip: list[str],
    strict: bool,
    import_torch: bool,
    budget: float | None,
    config_path: Path | None,
) -> int:
    """Record the conditions of this environment as a JSON manifest."""
    from envsnap.capture import capture_process
    from envsnap.config import discover_config, load_config

    config = load_config(config_path) if config_path else discover_config(Path.cwd())
    changes: dict[str, object] = {"import_torch": import_torch}
    if budget is not None:
        changes["budget_s"] = budget
    config = config.with_overrides(**changes)
    manifest = capture_process(config=config, only=only or None, skip=skip or None, label=label)
    emit(manifest.to_json(), output)
    failed = sorted(
        name for name, record in manifest.collectors.items() if record.status == "error"
    )
    if failed:
        click.echo(f"envsnap: collectors failed: {', '.join(failed)}", err=True)
        return 1 if strict else 0
    return 0
