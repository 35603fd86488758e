"""Renderers for `envsnap fleet` reports. Each returns a string."""

from __future__ import annotations

import json
from collections.abc import Callable

from envsnap.diff.fleet import FleetClass, FleetReport
from envsnap.manifest.canonical import pretty_text
from envsnap.render.escape import json_text, markdown_cell, markdown_code, terminal_cell

# How many members and differences a text rendering lists per class before summarising.
SHOW_MEMBERS = 8
SHOW_DIFFERENCES = 12


def _value(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _members(fleet_class: FleetClass) -> str:
    shown = ", ".join(fleet_class.members[:SHOW_MEMBERS])
    more = fleet_class.size - SHOW_MEMBERS
    return shown + (f" (+{more} more)" if more > 0 else "")


def _headline(report: FleetReport) -> str:
    if len(report.classes) <= 1:
        return f"{report.total} manifests, all equivalent for results"
    return (
        f"{report.total} manifests in {len(report.classes)} classes; "
        f"{len(report.odd_ones_out)} odd one(s) out"
    )


def render_json(report: FleetReport) -> str:
    return json_text(pretty_text(report.model_dump(mode="json")))


def render_markdown(report: FleetReport) -> str:
    lines = [f"# envsnap fleet ({markdown_cell(report.target)})", "", _headline(report), ""]
    lines += ["| class | size | members | hosts |", "|---|---|---|---|"]
    for c in report.classes:
        name = f"{c.id} (reference)" if c.reference else str(c.id)
        hosts = markdown_cell(", ".join(c.hosts) or "-")
        lines.append(f"| {name} | {c.size} | {markdown_cell(_members(c))} | {hosts} |")
    for c in report.classes[1:]:
        lines += ["", f"## Class {c.id}: what sets it apart", ""]
        lines += ["| severity | path | reference | this class |", "|---|---|---|---|"]
        for f in c.differences[:SHOW_DIFFERENCES]:
            cells = (
                markdown_cell(f.severity),
                *(markdown_code(v) for v in (f.path, _value(f.a), _value(f.b))),
            )
            lines.append("| " + " | ".join(cells) + " |")
        if len(c.differences) > SHOW_DIFFERENCES:
            lines.append(f"| | ({len(c.differences) - SHOW_DIFFERENCES} more) | | |")
    if report.odd_ones_out:
        lines += ["", "## Odd ones out", ""]
        lines += [f"- {markdown_cell(source)}" for source in report.odd_ones_out]
    return "\n".join(lines) + "\n"


def render_table(report: FleetReport, *, color: bool | None = None) -> str:
    from rich.table import Table

    from envsnap.render.console import render_to_text

    classes = Table(title=terminal_cell(_headline(report)))
    for column in ("class", "size", "members", "hosts"):
        classes.add_column(column, overflow="fold")
    for c in report.classes:
        classes.add_row(
            f"{c.id} (reference)" if c.reference else str(c.id),
            str(c.size),
            terminal_cell(_members(c)),
            terminal_cell(", ".join(c.hosts[:SHOW_MEMBERS]) or "-"),
        )
    parts: list[object] = [classes]
    for c in report.classes[1:]:
        table = Table(title=f"class {c.id} vs reference")
        for column in ("severity", "path", "reference", "this class"):
            table.add_column(column, overflow="fold")
        for f in c.differences[:SHOW_DIFFERENCES]:
            table.add_row(
                *(terminal_cell(cell) for cell in (f.severity, f.path, _value(f.a), _value(f.b)))
            )
        if len(c.differences) > SHOW_DIFFERENCES:
            table.add_row("", f"({len(c.differences) - SHOW_DIFFERENCES} more)", "", "")
        parts.append(table)
    return render_to_text(*parts, color=color)


FLEET_RENDERERS: dict[str, Callable[[FleetReport], str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "json": render_json,
}
