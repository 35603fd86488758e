"""Renderers for `envsnap fleet` reports. Each returns a string."""

from __future__ import annotations

import json
from collections.abc import Callable

from envsnap.diff.fleet import FleetClass, FleetReport
from envsnap.manifest.canonical import pretty_text

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
    return pretty_text(report.model_dump(mode="json"))


def render_markdown(report: FleetReport) -> str:
    lines = [f"# envsnap fleet ({report.target})", "", _headline(report), ""]
    lines += ["| class | size | members | hosts |", "|---|---|---|---|"]
    for c in report.classes:
        name = f"{c.id} (reference)" if c.reference else str(c.id)
        lines.append(f"| {name} | {c.size} | {_members(c)} | {', '.join(c.hosts) or '-'} |")
    for c in report.classes[1:]:
        lines += ["", f"## Class {c.id}: what sets it apart", ""]
        lines += ["| severity | path | reference | this class |", "|---|---|---|---|"]
        for f in c.differences[:SHOW_DIFFERENCES]:
            lines.append(f"| {f.severity} | `{f.path}` | `{_value(f.a)}` | `{_value(f.b)}` |")
        if len(c.differences) > SHOW_DIFFERENCES:
            lines.append(f"| | ({len(c.differences) - SHOW_DIFFERENCES} more) | | |")
    if report.odd_ones_out:
        lines += ["", "## Odd ones out", ""]
        lines += [f"- {source}" for source in report.odd_ones_out]
    return "\n".join(lines) + "\n"


def render_table(report: FleetReport, *, color: bool | None = None) -> str:
    from rich.table import Table

    from envsnap.render.console import render_to_text

    classes = Table(title=_headline(report))
    for column in ("class", "size", "members", "hosts"):
        classes.add_column(column, overflow="fold")
    for c in report.classes:
        classes.add_row(
            f"{c.id} (reference)" if c.reference else str(c.id),
            str(c.size),
            _members(c),
            ", ".join(c.hosts[:SHOW_MEMBERS]) or "-",
        )
    parts: list[object] = [classes]
    for c in report.classes[1:]:
        table = Table(title=f"class {c.id} vs reference")
        for column in ("severity", "path", "reference", "this class"):
            table.add_column(column, overflow="fold")
        for f in c.differences[:SHOW_DIFFERENCES]:
            table.add_row(f.severity, f.path, _value(f.a), _value(f.b))
        if len(c.differences) > SHOW_DIFFERENCES:
            table.add_row("", f"({len(c.differences) - SHOW_DIFFERENCES} more)", "", "")
        parts.append(table)
    return render_to_text(*parts, color=color)


FLEET_RENDERERS: dict[str, Callable[[FleetReport], str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "json": render_json,
}
