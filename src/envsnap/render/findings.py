"""Renderers for `Report` (diff and check): table, markdown and json. They return strings.

`RENDERERS` maps a format name to a function `Report -> str`; the CLI feeds its keys to
`click.Choice`. The table is coloured only when stdout is a terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from envsnap.diff.report import SEVERITIES, Report
from envsnap.manifest.canonical import pretty_text
from envsnap.render.console import render_to_text
from envsnap.render.escape import markdown_cell

SEVERITY_STYLE: dict[str, str] = {
    "critical": "bold red",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}


def _counts(report: Report) -> str:
    return ", ".join(f"{report.summary.counts.get(s, 0)} {s}" for s in SEVERITIES)


def _header(report: Report) -> str:
    sides = f"A={report.a or '-'}  B={report.b or '-'}"
    return f"{report.kind} ({report.target}): {sides}  [{_counts(report)}]"


def render_table(report: Report, *, color: bool | None = None, width: int = 160) -> str:
    """A rich table grouped by severity, one line per finding; the verdict is the first line.

    Long cells are cut with an ellipsis; markdown and json carry the full text."""
    from rich.table import Table
    from rich.text import Text

    verdict = Text(report.summary.verdict, style="bold")
    header = Text(_header(report), style="dim")
    if not report.findings:
        return render_to_text(verdict, header, color=color, width=width)
    table = Table(show_header=True, header_style="bold", expand=True, show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("path", no_wrap=True, overflow="ellipsis", ratio=2)
    table.add_column("finding", no_wrap=True, overflow="ellipsis", ratio=3)
    table.add_column("why / fix", no_wrap=True, overflow="ellipsis", ratio=2, style="dim")
    previous = None
    for finding in report.findings:
        if previous is not None and finding.severity != previous:
            table.add_section()
        previous = finding.severity
        table.add_row(
            str(finding.rank),
            Text(finding.severity, style=SEVERITY_STYLE[finding.severity]),
            finding.path,
            finding.title,
            f"{finding.why} Fix: {finding.fix}",
        )
    return render_to_text(verdict, header, table, color=color, width=width)


def render_markdown(report: Report) -> str:
    """GitHub-flavoured markdown for PR comments and audit reports."""
    lines = [
        f"**{markdown_cell(report.summary.verdict)}**",
        "",
        f"{markdown_cell(_header(report))}",
        "",
    ]
    if report.findings:
        lines += [
            "| # | severity | finding | path | rule | why | fix |",
            "|---:|---|---|---|---|---|---|",
        ]
        for f in report.findings:
            lines.append(
                f"| {f.rank} | {f.severity} | {markdown_cell(f.title)} | `{markdown_cell(f.path)}` | "
                f"{f.rule} | {markdown_cell(f.why)} | {markdown_cell(f.fix)} |"
            )
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    """The report as JSON following schemas/diff-report.v1.json."""
    return pretty_text(report.model_dump(mode="json"))


RENDERERS: dict[str, Callable[[Report], str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "json": render_json,
}
