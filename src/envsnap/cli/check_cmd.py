"""`envsnap check`: a reproducibility lint over one manifest, or over this environment."""

from __future__ import annotations

from typing import Any

import click

from envsnap.cli import cli
from envsnap.cli.options import emit, fail_on_option, format_option, output_option, target_option


def _document(file: str | None, import_torch: bool) -> tuple[dict[str, Any], str]:
    """The manifest to check (validated), and its label."""
    if file is not None:
        # A manifest, or a foreign record (collect_env report, W&B or MLflow run), detected.
        from envsnap.interop.importers import load_any

        return load_any(file).to_document(), file
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.config import discover_config
    from envsnap.capturing.run import capture_document

    config = discover_config(working_directory()).with_overrides(import_torch=import_torch)
    return capture_document(config=config), "(this environment)"


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False), required=False)
@target_option()
@format_option()
@fail_on_option()
@output_option()
@click.option(
    "--torch",
    "import_torch",
    is_flag=True,
    help="Without FILE: import torch to check its runtime flags too.",
)
def check(
    file: str | None,
    target: str,
    fmt: str,
    fail_on: str | None,
    output: str | None,
    import_torch: bool,
) -> int:
    """Lint manifest FILE for reproducibility problems (this environment when FILE is omitted).

    Facts the manifest does not hold are reported at info, never guessed.
    """
    from envsnap.diff.check import check_document
    from envsnap.render.findings import RENDERERS

    document, label = _document(file, import_torch)
    report = check_document(
        document,
        target,  # type: ignore[arg-type]  # click.Choice guarantees a Target
        live=file is None,
        label=label,
    )
    emit(RENDERERS[fmt](report), output)
    return 1 if fail_on is not None and report.reaches(fail_on) else 0
