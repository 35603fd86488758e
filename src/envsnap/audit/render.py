"""Audit output as a rich table, markdown or JSON. Every manifest-derived value is escaped
through envsnap.render.escape (control characters everywhere, a table cell's pipes and line
breaks in markdown) and rich markup in the table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from rich.markup import escape
from rich.table import Table

from envsnap.audit.results import AuditFinding, AuditResult
from envsnap.render.escape import markdown_cell, terminal_text


def _md(text: str) -> str:
    return markdown_cell(terminal_text(text))


def why(finding: AuditFinding) -> str:
    """The facts that made the advisory apply, one short clause each."""
    parts = [f"{name} {version}" for name, version in finding.packages.items() if version]
    for match in finding.facts:
        if match.outcome is None:
            # A run: fact is derived from several sections, so none of them is "not captured".
            parts.append(
                f"{match.fact} {'unknown' if match.fact.startswith('run:') else 'not captured'}"
            )
        elif match.outcome:
            values = match.deciding if match.deciding is not None else match.values or []
            unique = dict.fromkeys(json.dumps(v) for v in values)  # 8 GPUs of one kind: once
            parts.append(f"{match.fact} = {', '.join(unique) or 'unset'}")
    if finding.ranks is not None:
        parts.append(f"ranks {', '.join(str(r) for r in finding.ranks)}")
    return "; ".join(parts)


def fix(finding: AuditFinding) -> str:
    upgrade = f"upgrade: {', '.join(finding.fixed)}. " if finding.fixed else ""
    return upgrade + finding.workaround


def render_table(results: Sequence[AuditResult], width: int | None = None) -> str:
    """One table per result, as wide as the terminal (see `terminal_width`); cells wrap."""
    from envsnap.render.console import render_to_text, terminal_width

    parts: list[object] = []
    for result in results:
        parts.append(f"[bold]{escape(terminal_text(result.source))}[/bold]: {count_line(result)}")
        if result.error:
            parts.append(f"  error: {escape(terminal_text(result.error))}")
        if not result.findings:
            continue
        table = Table(show_lines=True)
        for column in ("advisory", "severity", "status"):  # short words: never broken
            table.add_column(column, no_wrap=True)
        for column in ("summary", "why it applies", "fix"):  # prose shares the rest
            table.add_column(column, overflow="fold", ratio=1)
        for f in result.findings:
            table.add_row(
                *(
                    escape(terminal_text(t))
                    for t in (f.id, f.severity, f.status, f.summary, why(f), fix(f))
                )
            )
        parts.append(table)
    return render_to_text(*parts, color=False, width=width or terminal_width())


def count_line(result: AuditResult) -> str:
    """How many advisories apply to one result, in words."""
    affected = len(result.affected())
    possible = len(result.findings) - affected
    if not result.findings:
        return "no known advisory applies" if not result.error else "not audited"
    return f"{affected} advisory(ies) apply, {possible} possible (facts not captured)"


def markdown_table(findings: Sequence[AuditFinding]) -> list[str]:
    """The findings as markdown table lines, every cell escaped."""
    lines = [
        "| advisory | severity | status | summary | why it applies | fix |",
        "|---|---|---|---|---|---|",
    ]
    return lines + [
        "| "
        + " | ".join(_md(t) for t in (f.id, f.severity, f.status, f.summary, why(f), fix(f)))
        + " |"
        for f in findings
    ]


def render_markdown(results: Sequence[AuditResult]) -> str:
    lines = ["# envsnap audit", ""]
    for result in results:
        lines += [f"## {_md(result.source)}", "", count_line(result), ""]
        if result.error:
            lines += [f"Error: {_md(result.error)}", ""]
        if result.findings:
            lines += [*markdown_table(result.findings), ""]
    return "\n".join(lines)


def json_lines(results: Iterable[AuditResult]) -> Iterable[str]:
    """The JSON document in pieces, so thousands of results stream with bounded memory."""
    yield '{"tool": "envsnap audit", "results": ['
    for index, result in enumerate(results):
        yield ("," if index else "") + "\n" + result.model_dump_json()
    yield "\n]}\n"
