"""`envsnap show -f markdown`: a paste-ready environment block for a bug report.

It plays the part of `python -m torch.utils.collect_env`'s text, from a manifest: every selected
section with its status, the result-relevant environment variables and the installed
distributions. Values pass through the redactor again (a hand-edited or imported manifest may
hold what a capture would have removed) and through one markdown escaper; a value the manifest
does not know is written '?', never 'None'.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from envsnap.capturing.redact import Redactor
from envsnap.manifest.model import Manifest
from envsnap.render.escape import terminal_text
from envsnap.render.summary import package_rows, section_rows

# Characters that would start markdown syntax inside a table cell.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|#~])")


class _Escaper:
    """Redacts, then makes a value inert as markdown text (no HTML, no syntax, one line)."""

    def __init__(self) -> None:
        self._redactor = Redactor()

    def text(self, value: str) -> str:
        safe = terminal_text(self._redactor.redact_text(value))
        return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(safe, quote=False))

    def code_line(self, value: str) -> str:
        """A value for a line inside a fenced block: only a fence could end the block."""
        return terminal_text(self._redactor.redact_text(value)).replace("`", "'")


def _details(summary: str, lines: list[str]) -> list[str]:
    return [
        "",
        f"<details><summary>{summary}</summary>",
        "",
        "```text",
        *lines,
        "```",
        "",
        "</details>",
    ]


def render_bug_report(manifest: Manifest, sections: Sequence[str] | None = None) -> str:
    """Markdown for an issue tracker: header facts, a section table, then collapsed listings."""
    esc = _Escaper()
    lines = [
        "### Environment (envsnap manifest)",
        "",
        "| | |",
        "|---|---|",
        f"| captured | {esc.text(manifest.created_at.isoformat())} |",
        f"| envsnap | {esc.text(manifest.tool.version)} |",
        f"| label | {esc.text(manifest.run.label or '-')} |",
        f"| digest | {esc.text(manifest.digest or '(none)')} |",
    ]
    if manifest.imported_from:
        origin = f"{manifest.imported_from.format} from {manifest.imported_from.source}"
        lines.append(f"| imported | {esc.text(origin)} |")
    lines += ["", "| section | status | summary |", "|---|---|---|"]
    for name, status, summary in section_rows(manifest, sections):
        lines.append(f"| {esc.text(name)} | {esc.text(status)} | {esc.text(summary)} |")
    chosen = set(sections or ())
    if manifest.env is not None and (not chosen or "env" in chosen):
        variables = [
            esc.code_line(f"{name}={value}") for name, value in manifest.env.variables.items()
        ]
        title = f"Environment variables ({len(variables)})"
        lines += _details(title, variables or ["(none of the result-relevant ones set)"])
    if manifest.packages is not None and (not chosen or "packages" in chosen):
        listing = [
            esc.code_line(f"{name}=={version}" + ("" if source == "index" else f"  # {source}"))
            for name, version, source in package_rows(manifest)
        ]
        lines += _details(f"Installed distributions ({len(listing)})", listing)
    return "\n".join(lines) + "\n"
