"""Renderers for `Report` (diff and check): table, markdown and json. They return strings.

`RENDERERS` maps a format name to a function `(Report, *, show_all, explain) -> str`; the CLI
feeds its keys to `click.Choice`. The table is coloured only when stdout is a terminal. JSON
always carries every finding with its evidence and rank reason.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
from collections.abc import Callable, Iterator

from envsnap.diff.report import SEVERITIES, Evidence, Finding, Report
from envsnap.manifest.canonical import pretty_text
from envsnap.render.console import render_to_text
from envsnap.render.escape import (
    json_text,
    markdown_cell,
    markdown_code,
    terminal_cell,
    terminal_text,
)

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


def shown(report: Report, show_all: bool) -> tuple[list[Finding], int]:
    """The findings to show and how many bookkeeping ones (noise) are hidden."""
    if show_all:
        return list(report.findings), 0
    kept = [f for f in report.findings if f.category != "noise"]
    return kept, len(report.findings) - len(kept)


def _hidden_line(hidden: int) -> str:
    return f"{hidden} bookkeeping difference(s) hidden (host, times, paths); --all shows them"


TOP_EXPLAINED = 3


def render_table(
    report: Report,
    *,
    color: bool | None = None,
    width: int | None = None,
    show_all: bool = False,
    explain: bool = False,
) -> str:
    """The verdict, a table that fits the terminal (one row per finding, wrapped, never cut),
    then why and what to do for the top findings. Bookkeeping is hidden unless `show_all`."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    width = width or shutil.get_terminal_size((120, 24)).columns
    verdict = terminal_cell(report.summary.verdict, "bold")
    header = terminal_cell(_header(report), "dim")
    findings, hidden = shown(report, show_all)
    parts: list[object] = [verdict, header]
    if findings:
        table = Table(show_header=True, header_style="bold", expand=True, show_lines=False)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("severity", no_wrap=True)
        table.add_column("finding", overflow="fold", ratio=3)
        rule_width = _rule_column_width(findings, width)
        table.add_column("rule / evidence", overflow="fold", width=rule_width, style="dim")
        previous = None
        for finding in findings:
            if previous is not None and finding.severity != previous:
                table.add_section()
            previous = finding.severity
            where = _rule_and_evidence(finding, rule_width)
            title = terminal_text(finding.title) + (f"\n[{finding.rank_reason}]" if explain else "")
            table.add_row(
                str(finding.rank),
                Text(finding.severity, style=SEVERITY_STYLE[finding.severity]),
                Text(title),
                Text(where),
            )
        parts.append(table)
    for finding, (head, why, fix) in zip(_top(findings), _explained(findings), strict=True):
        parts.append(Text(terminal_text(head), style="bold"))
        lines = [why, fix]
        if explain:
            lines.append(basis_text(finding, str, str, report.kind == "diff"))
        parts.extend(Padding(Text(terminal_text(line)), (0, 0, 0, 3)) for line in lines)
    if hidden:
        parts.append(Text(_hidden_line(hidden), style="dim"))
    return render_to_text(*parts, color=color, width=width)


# Cell padding and borders of the table's four columns, and the severity column's width.
_TABLE_FRAME = 13
_SEVERITY_WIDTH = len("critical")


def _rule_column_width(findings: list[Finding], width: int) -> int:
    """Two fifths of the room the fixed columns leave, and never less than the longest rule id
    (an id is a name to search for: it is never broken)."""
    rank_width = len(str(max((f.rank for f in findings), default=1)))
    room = width - _TABLE_FRAME - rank_width - _SEVERITY_WIDTH
    return max(room * 2 // 5, *(len(f.rule) for f in findings))


def _rule_and_evidence(finding: Finding, width: int) -> str:
    """'rule · path (+n)', broken into lines of `width` between words; a path longer than a line
    breaks after a dot, and only a single path part longer than the column is folded."""
    extra = len(finding.evidence) - 1
    path = terminal_text(finding.path)
    parts = re.findall(r"[^.]+\.?", path) if len(path) > width else [path]
    pieces = [(finding.rule, True), ("·", True), *((part, i == 0) for i, part in enumerate(parts))]
    if extra > 0:
        pieces.append((f"(+{extra})", True))
    lines = [""]
    for text, spaced in pieces:
        joined = f"{lines[-1]} {text}" if spaced and lines[-1] else lines[-1] + text
        if len(joined) <= width or not lines[-1]:
            lines[-1] = joined
        else:
            lines.append(text)
    return "\n".join(lines)


def _top(findings: list[Finding]) -> list[Finding]:
    """The findings whose why and fix are shown in full: the first few above info."""
    return [f for f in findings if f.severity != "info"][:TOP_EXPLAINED]


def _explained(findings: list[Finding]) -> list[tuple[str, str, str]]:
    """Why and what to do, in full, for the top findings above info."""
    return [
        (f"{finding.rank}. {finding.title}", f"why: {finding.why}", f"fix: {finding.fix}")
        for finding in _top(findings)
    ]


_BASIS_TEXT: dict[str, str] = {
    "stated": "a difference the records state",
    "inferred": "a difference inferred from what the records state",
    "shared": "a risk both sides leave open",
    "unknown": "a note about what is not recorded",
}
# Paths named per part of an explanation; the rest are counted (a folded finding has 200k).
EXPLAINED_PATHS = 4


def _recorded_on(entry: Evidence) -> str:
    if entry.a is not None and entry.b is not None:
        return "both sides"
    if entry.a is not None or entry.b is not None:
        return "A only" if entry.a is not None else "B only"
    return "neither side"


def _missing_on(entry: Evidence) -> str:
    """Where a note's fact is missing: the side without a value, else 'one side' (a value one
    side lists as unknown)."""
    if (entry.a is None) != (entry.b is None):
        return "A" if entry.a is None else "B"
    return "one side"


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:EXPLAINED_PATHS])
    rest = len(items) - EXPLAINED_PATHS
    return f"{shown} and {rest} more" if rest > 0 else shown


def basis_text(
    finding: Finding, path: Callable[[str], str], text: Callable[[str], str], sides: bool = True
) -> str:
    """What a finding rests on, fact by fact: 'basis: ...; stated: gpu.devices.0.name (both
    sides); inferred: <what from> at torch.effective.matmul_fp32.tf32'. `path` and `text`
    escape manifest paths and prose for the output; `sides` names which side records each
    stated fact (a diff; a check has one side)."""
    entries = finding.evidence or [Evidence(path=finding.path, a=finding.a, b=finding.b)]
    parts = [f"basis: {text(_BASIS_TEXT[finding.basis])}"]
    # Each part is a label and the paths it covers: "stated: a (both sides), b (B only)",
    # "inferred: <what from> at c".
    groups: dict[tuple[str, str], list[str]] = {}
    for entry in entries:
        if entry.inferred is not None:
            key = (f"inferred: {text(entry.inferred)}", " at ")
            groups.setdefault(key, []).append(path(entry.path))
        elif finding.basis == "unknown" and sides:
            key = (f"not recorded on {_missing_on(entry)}", ": ")
            groups.setdefault(key, []).append(path(entry.path))
        else:
            where = f" ({_recorded_on(entry)})" if sides else ""
            groups.setdefault(("stated", ": "), []).append(f"{path(entry.path)}{where}")
    parts += [f"{label}{joiner}{_listed(items)}" for (label, joiner), items in groups.items()]
    return "; ".join(parts)


def render_markdown(report: Report, *, show_all: bool = False, explain: bool = False) -> str:
    """GitHub-flavoured markdown for PR comments and audit reports (bookkeeping hidden unless
    `show_all`)."""
    findings, hidden = shown(report, show_all)
    lines = [
        f"**{markdown_cell(report.summary.verdict)}**",
        "",
        f"{markdown_cell(_header(report))}",
        "",
    ]
    if findings:
        lines += [
            "| # | severity | finding | path | rule | why | fix |",
            "|---:|---|---|---|---|---|---|",
        ]
        for f in findings:
            reason = f" ({markdown_cell(f.rank_reason)})" if explain and f.rank_reason else ""
            lines.append(
                f"| {f.rank} | {markdown_cell(f.severity)} | {markdown_cell(f.title)}{reason} | "
                f"{markdown_code(f.path)} | {markdown_cell(f.rule)} | {markdown_cell(f.why)} | "
                f"{markdown_cell(f.fix)} |"
            )
    if explain and _top(findings):
        lines += ["", "**What the top findings rest on**", ""]
        lines += [
            f"- {f.rank}. {markdown_cell(f.title)}: "
            f"{basis_text(f, markdown_code, markdown_cell, report.kind == 'diff')}"
            for f in _top(findings)
        ]
    if hidden:
        lines += ["", f"_{_hidden_line(hidden)}_"]
    return "\n".join(lines) + "\n"


def render_json(report: Report, *, show_all: bool = True, explain: bool = True) -> str:
    """The report as JSON following schemas/diff-report.v1.json."""
    return "".join(json_pieces(report))


# An evidence list longer than this (the folded tail of a common cause) is written one
# compact entry per line: indenting every value of 200k entries would build millions of
# small strings in pure Python, and the text would be several times larger.
COMPACT_EVIDENCE = 64


def json_pieces(report: Report) -> Iterator[str]:
    """`render_json`'s text in pieces, for writing as it is made: the report pretty-printed,
    with each long evidence list one entry per line. A report without long lists is one
    piece, the same text as before long lists existed."""
    long = {
        index: finding.evidence
        for index, finding in enumerate(report.findings)
        if len(finding.evidence) > COMPACT_EVIDENCE
    }
    document = report.model_dump(
        mode="json", exclude={"findings": {index: {"evidence"} for index in long}}
    )
    # Each long list is a slot in the pretty text, named by a token chosen now: a value read
    # from a manifest cannot spell it in advance.
    slot = f"evidence-{secrets.token_hex(16)}-"
    for index in long:
        document["findings"][index]["evidence"] = f"{slot}{index}"
    text = json_text(pretty_text(document))
    for index, entries in long.items():
        head, _, text = text.partition(f'"{slot}{index}"')
        indent = " " * (len(head) - head.rfind("\n") - 1 - len('"evidence": '))
        yield head + "[\n"
        yield from _compact_entries(entries, indent + "  ")
        yield "\n" + indent + "]"
    yield text


def _compact_entries(entries: list[Evidence], indent: str) -> Iterator[str]:
    """`{"a": ..., "b": ..., "inferred": ..., "path": ...}` per line, keys sorted as in the pretty
    text."""
    last = len(entries) - 1
    for position, entry in enumerate(entries):
        line = json.dumps(
            {"a": entry.a, "b": entry.b, "inferred": entry.inferred, "path": entry.path},
            sort_keys=True,
            ensure_ascii=False,
            allow_nan=False,
        )
        yield indent + json_text(line) + (",\n" if position < last else "")


RENDERERS: dict[str, Callable[..., str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "json": render_json,
}
