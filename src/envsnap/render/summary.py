"""`envsnap show`: a one-screen summary of a manifest."""

from __future__ import annotations

from typing import Any

from envsnap.manifest import Manifest
from envsnap.render.console import render_to_text
from envsnap.sections import SECTION_MODELS


def _section_line(name: str, section: Any) -> str:
    """One line of the most telling facts per section; unknown sections show their size."""
    if name == "code":
        state = "dirty" if section.dirty else "clean"
        where = section.branch or "detached HEAD"
        return f"{section.commit[:12]} on {where}, {state}, {section.untracked_count} untracked"
    if name == "python":
        return f"{section.implementation} {section.version} ({section.environment}) {section.executable}"
    if name == "packages":
        locks = ", ".join(lock.path for lock in section.lock_files) or "no lock files"
        return f"{len(section.installed)} distributions; {locks}"
    if name == "system":
        cpu = section.cpu
        return (
            f"{section.os_release or section.os} kernel {section.kernel}, {section.libc or 'libc ?'}; "
            f"{cpu.model or cpu.architecture} ({cpu.usable_cores}/{cpu.logical_cores} cores, "
            f"{', '.join(cpu.isa_flags[:6]) or 'no ISA flags'})"
        )
    if name == "env":
        shown = ", ".join(f"{k}={v}" for k, v in list(section.variables.items())[:4])
        more = len(section.variables) - 4
        return (shown or "no result-relevant variables set") + (
            f" (+{more} more)" if more > 0 else ""
        )
    fields = section.model_dump(exclude={"unknown"})
    return f"{len(fields)} fields recorded"


def _cell(value: str, style: str = "") -> Any:
    """Manifest text as a literal cell: `[x]` is not rich markup, and control characters
    (terminal escapes from a hostile file) are shown escaped instead of being sent."""
    from rich.text import Text

    safe = "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in value
    )
    return Text(safe, style=style)


def render_summary(manifest: Manifest, *, color: bool | None = None) -> str:
    """The `envsnap show` text: header facts, then one row per section with its status."""
    from rich.table import Table

    header = Table.grid(padding=(0, 2))
    header.add_row("created", manifest.created_at.isoformat())
    header.add_row("envsnap", _cell(manifest.tool.version))
    header.add_row("label", _cell(manifest.run.label or "-"))
    header.add_row("digest", _cell(manifest.digest or "(none)"))
    if manifest.imported_from:
        header.add_row(
            "imported",
            _cell(f"{manifest.imported_from.format} from {manifest.imported_from.source}"),
        )

    table = Table(title="sections", show_lines=False, expand=False)
    table.add_column("section")
    table.add_column("status")
    table.add_column("summary", overflow="fold")
    for name in SECTION_MODELS:
        section = getattr(manifest, name)
        record = manifest.collectors.get(name)
        if section is not None:
            status = "ok"
            summary = _section_line(name, section)
            if section.unknown:
                summary += f"  [unknown: {', '.join(sorted(section.unknown))}]"
        elif record is not None:
            status = record.status
            summary = record.reason or ""
        else:
            continue
        style = {"ok": "green", "skipped": "yellow", "error": "red"}.get(status, "")
        table.add_row(name, _cell(status, style), _cell(summary))
    return render_to_text(header, table, color=color)
