"""The audit document: one self-contained HTML or markdown file for a model audit.

It holds the run's conditions, the reproducibility check, the ranked diff against another run
(when given), what could not be captured and why, and the manifest digest with how to verify it.
HTML has inline CSS only: no scripts, fonts or images, so it opens offline and stays the same
wherever it is archived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envsnap.audit.render import count_line, fix, markdown_table, why
from envsnap.audit.results import AuditResult
from envsnap.diff.report import SEVERITIES, Report
from envsnap.manifest.facts import key_facts
from envsnap.manifest.model import Manifest
from envsnap.render.escape import (
    html_text,
    markdown_cell,
    markdown_code,
    markdown_text,
    terminal_text,
)
from envsnap.render.findings import render_markdown, shown

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;
color:#1d232a;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.5rem 0}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
.sev{font-weight:600;text-transform:uppercase;font-size:.75rem;padding:.1rem .35rem;border-radius:.25rem}
.critical{background:#8b0000;color:#fff}.high{background:#d1242f;color:#fff}.medium{background:#d4a72c}
.low{background:#ddf4ff}.info{background:#eaeef2}.ok{color:#1a7f37}.skipped{color:#9a6700}.error{color:#d1242f}
.verdict{font-size:1.05rem;font-weight:600}.muted{color:#57606a}
"""


@dataclass(frozen=True)
class AuditInputs:
    """Everything an audit document shows."""

    manifest: Manifest
    source: str
    check: Report
    advisories: AuditResult | None = None  # `envsnap audit` of the manifest
    diff: Report | None = None
    against: str | None = None
    signature: str | None = None


def _verify_lines(inputs: AuditInputs) -> list[str]:
    lines = [f"envsnap verify {inputs.source}"]
    if inputs.signature:
        lines.append(
            f"envsnap verify {inputs.source} --key PUBLIC_KEY.pem --signature {inputs.signature}"
        )
    return lines


def _collector_rows(manifest: Manifest) -> list[tuple[str, str, str, str]]:
    return [
        (name, record.status, record.reason or "", f"{record.duration_ms:.0f} ms")
        for name, record in sorted(manifest.collectors.items())
    ]


def _unknown_rows(manifest: Manifest) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    document: dict[str, Any] = manifest.to_document()
    for name, section in document.items():
        if isinstance(section, dict) and isinstance(section.get("unknown"), dict):
            rows.extend(
                (f"{name}.{field}", reason) for field, reason in sorted(section["unknown"].items())
            )
    return rows


def _html_findings(report: Report) -> str:
    if not report.findings:
        return "<p class='muted'>No findings.</p>"
    findings, hidden = shown(report, show_all=False)  # bookkeeping is counted, not listed
    note = f"<p class='muted'>{hidden} bookkeeping difference(s) not listed.</p>" if hidden else ""
    rows = "".join(
        "<tr>"
        f"<td>{f.rank}</td><td><span class='sev {f.severity}'>{f.severity}</span></td>"
        f"<td>{html_text(f.title)}</td><td><code>{html_text(f.path)}</code></td>"
        f"<td>{html_text(f.why)}</td><td>{html_text(f.fix)}</td><td><code>{html_text(f.rule)}</code></td>"
        "</tr>"
        for f in findings
    )
    return (
        "<table><tr><th>#</th><th>severity</th><th>finding</th><th>path</th><th>why</th>"
        f"<th>what to do</th><th>rule</th></tr>{rows}</table>{note}"
    )


def _html_counts(report: Report) -> str:
    return " · ".join(
        f"<span class='sev {name}'>{name}</span> {report.summary.counts.get(name, 0)}"
        for name in SEVERITIES
    )


def _html_advisories(result: AuditResult | None) -> str:
    if result is None:
        return ""
    rows = "".join(
        f"<tr><td><span class='sev {f.severity}'>{f.severity}</span></td>"
        + "".join(
            f"<td>{html_text(text)}</td>" for text in (f.id, f.status, f.summary, why(f), fix(f))
        )
        + "</tr>"
        for f in result.findings
    )
    table = (
        "<table><tr><th>severity</th><th>advisory</th><th>status</th><th>summary</th>"
        f"<th>why it applies</th><th>fix</th></tr>{rows}</table>"
        if rows
        else ""
    )
    return (
        "<h2>Known bugs and default changes (envsnap audit)</h2>"
        f"<p>{html_text(count_line(result))}</p>{table}"
    )


def render_audit_html(inputs: AuditInputs) -> str:
    manifest = inputs.manifest
    facts = "".join(
        f"<tr><th>{html_text(name.removeprefix('envsnap.'))}</th><td><code>{html_text(value)}</code></td></tr>"
        for name, value in key_facts(manifest).items()
    )
    collectors = "".join(
        f"<tr><td>{html_text(n)}</td><td class='{s}'>{s}</td><td>{html_text(r)}</td><td>{d}</td></tr>"
        for n, s, r, d in _collector_rows(manifest)
    )
    unknown = "".join(
        f"<tr><td><code>{html_text(p)}</code></td><td>{html_text(r)}</td></tr>"
        for p, r in _unknown_rows(manifest)
    )
    diff_html = ""
    if inputs.diff is not None:
        diff_html = (
            f"<h2>Differences against {html_text(inputs.against or 'the other run')}</h2>"
            f"<p class='verdict'>{html_text(inputs.diff.summary.verdict)}</p>"
            f"<p>Target: <b>{inputs.diff.target}</b> · {_html_counts(inputs.diff)}</p>"
            + _html_findings(inputs.diff)
        )
    verify = "<br>".join(f"<code>{html_text(line)}</code>" for line in _verify_lines(inputs))
    title = f"envsnap audit: {manifest.run.label or inputs.source}"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width,initial-scale=1'><title>{html_text(title)}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>{html_text(title)}</h1>"
        f"<p class='muted'>Captured {html_text(manifest.created_at.isoformat())} by envsnap "
        f"{html_text(manifest.tool.version)} · manifest <code>{html_text(inputs.source)}</code></p>"
        f"<h2>Run conditions</h2><table>{facts}</table>"
        f"<h2>Reproducibility check</h2><p class='verdict'>{html_text(inputs.check.summary.verdict)}</p>"
        f"<p>Target: <b>{inputs.check.target}</b> · {_html_counts(inputs.check)}</p>"
        + _html_findings(inputs.check)
        + _html_advisories(inputs.advisories)
        + diff_html
        + "<h2>What was captured</h2><table><tr><th>collector</th><th>status</th><th>reason</th>"
        f"<th>time</th></tr>{collectors}</table>"
        + (
            f"<h3>Values that could not be collected</h3><table><tr><th>field</th><th>why</th></tr>{unknown}</table>"
            if unknown
            else ""
        )
        + f"<h2>Integrity</h2><p>Manifest digest: <code>{html_text(manifest.digest or '(none)')}</code></p>"
        "<p>The digest is the sha256 of the manifest's canonical JSON without the digest field. "
        f"Recompute it with:</p><p>{verify}</p>"
        "</body></html>\n"
    )


def render_audit_markdown(inputs: AuditInputs) -> str:
    manifest = inputs.manifest
    lines = [
        f"# envsnap audit: {markdown_text(manifest.run.label or inputs.source)}",
        "",
        f"Captured {manifest.created_at.isoformat()} by envsnap "
        f"{markdown_text(manifest.tool.version)}; manifest {markdown_code(inputs.source)}.",
        "",
        "## Run conditions",
        "",
        "| fact | value |",
        "|---|---|",
        *(
            f"| {markdown_cell(name.removeprefix('envsnap.'))} | {markdown_code(value)} |"
            for name, value in key_facts(manifest).items()
        ),
        "",
        "## Reproducibility check",
        "",
        render_markdown(inputs.check),
    ]
    if inputs.advisories is not None:
        lines += ["## Known bugs and default changes (envsnap audit)", ""]
        lines += [count_line(inputs.advisories), ""]
        if inputs.advisories.findings:
            lines += [*markdown_table(inputs.advisories.findings), ""]
    if inputs.diff is not None:
        lines += [
            f"## Differences against {markdown_text(inputs.against or 'the other run')}",
            "",
            render_markdown(inputs.diff),
        ]
    lines += [
        "## What was captured",
        "",
        "| collector | status | reason | time |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {markdown_cell(n)} | {markdown_cell(s)} | {markdown_cell(r)} | {markdown_cell(d)} |"
        for n, s, r, d in _collector_rows(manifest)
    ]
    unknown = _unknown_rows(manifest)
    if unknown:
        lines += ["", "Values that could not be collected:", ""]
        lines += [f"- {markdown_code(path)}: {markdown_text(reason)}" for path, reason in unknown]
    lines += [
        "",
        "## Integrity",
        "",
        f"Manifest digest: {markdown_code(manifest.digest)} (sha256 of the canonical JSON without the digest).",
        "Recompute it with:",
        "",
        *(f"    {terminal_text(line)}" for line in _verify_lines(inputs)),
        "",
    ]
    return "\n".join(lines)


AUDIT_RENDERERS = {"html": render_audit_html, "markdown": render_audit_markdown}
