"""Render a checkpoint audit (`envsnap ckpt inspect`) as a table or JSON. Returns strings."""

from __future__ import annotations

from envsnap.manifest.canonical import pretty_text
from envsnap.render.console import render_to_text
from envsnap.render.escape import json_text, terminal_cell, terminal_text
from envsnap.training.checkpoint.inspect import CheckpointReport


def render_checkpoint_json(report: CheckpointReport) -> str:
    """The audit as pretty JSON (the `CheckpointReport` model)."""
    return json_text(pretty_text(report.model_dump(mode="json")))


def render_checkpoint_table(report: CheckpointReport, *, color: bool | None = None) -> str:
    """Items present or missing, then the findings with their consequences."""
    from rich.table import Table
    from rich.text import Text

    head = Text(
        f"checkpoint {terminal_text(report.path)} ({report.kind}, target {report.target}): "
        + ("complete" if report.complete else "INCOMPLETE"),
        style="bold green" if report.complete else "bold red",
    )
    items = Table(show_header=True, header_style="bold")
    for column in ("item", "present", "where", "detail"):
        items.add_column(column)
    for item in report.items:
        items.add_row(
            terminal_cell(item.item),
            "yes" if item.present else ("NO" if item.needed else "not needed"),
            terminal_cell(item.where or "-"),
            terminal_cell(item.detail),
        )
    parts: list[object] = [head, items]
    for finding in report.findings:
        parts.append(terminal_cell(f"[{finding.severity}] {finding.title}", "bold"))
        parts.append(terminal_cell(f"  why: {finding.why}"))
        parts.append(terminal_cell(f"  fix: {finding.fix}"))
    return render_to_text(*parts, color=color)
