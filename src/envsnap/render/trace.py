"""Render a trace comparison (`envsnap trace diff`) as a table or JSON. Returns strings."""

from __future__ import annotations

from envsnap.manifest.canonical import pretty_text
from envsnap.render.console import render_to_text
from envsnap.render.escape import json_text, terminal_cell
from envsnap.training.trace.compare import TraceDiff


def _short(value: object) -> str:
    text = str(value)
    # Digests are long; the first 12 hex digits are enough to tell two apart on screen.
    if text.startswith("sha256:"):
        return text[:19] + "…"
    return text


def render_trace_json(result: TraceDiff) -> str:
    """The comparison as pretty JSON (the `TraceDiff` model)."""
    return json_text(pretty_text(result.model_dump(mode="json")))


def render_trace_table(result: TraceDiff, *, color: bool | None = None) -> str:
    """A human summary: verdict, the fields of the first difference, the diagnosis."""
    from rich.table import Table
    from rich.text import Text

    lines: list[object] = [
        terminal_cell(f"trace diff: {result.a} vs {result.b} (mode {result.mode})", "bold"),
        Text(
            f"{result.updates} updates compared ({result.first_update}-{result.last_update})"
            + "".join(
                f"; {side} resumed at update {', '.join(map(str, resumes))}"
                for side, resumes in (("A", result.resumes_a), ("B", result.resumes_b))
                if resumes
            )
        ),
    ]
    first = result.first_difference
    if result.agree and first is None:
        lines.append(Text("AGREE: the traces are identical", style="green bold"))
    elif result.agree and first is not None:
        lines.append(
            Text(
                f"AGREE within tolerance (rtol {result.rtol:g}, atol {result.atol:g}); "
                f"bitwise differences start at update {first.update}",
                style="yellow bold",
            )
        )
    else:
        lines.append(Text(f"DIVERGED at update {result.divergence_update}", style="red bold"))
    if first is not None:
        after = " (first update after a resume)" if first.after_resume else ""
        agreed = (
            f"; both agreed through update {first.previous_update}"
            if first.previous_update is not None
            else ""
        )
        lines.append(Text(f"First difference at update {first.update}{after}{agreed}"))
        table = Table(show_header=True, header_style="bold")
        for column in ("field", "group", "A", "B", "within tol"):
            table.add_column(column)
        for diff in first.fields:
            table.add_row(
                terminal_cell(diff.field),
                terminal_cell(diff.group),
                terminal_cell(_short(diff.a)),
                terminal_cell(_short(diff.b)),
                "yes" if diff.within_tolerance else "no",
            )
        lines.append(table)
    if result.diagnosis is not None:
        lines.append(
            terminal_cell(f"Diagnosis ({result.diagnosis.code}): {result.diagnosis.cause}.")
        )
        lines.append(terminal_cell(f"Fix: {result.diagnosis.fix}"))
    if len(result.lost_at_resume) > 1:
        # Every independent loss, not only the first: fixing one would leave the others.
        lines.append(Text(f"State lost at the resume ({len(result.lost_at_resume)}):"))
        for lost in result.lost_at_resume:
            lines.append(terminal_cell(f"  {lost.code}: {lost.fix}"))
    if result.not_compared:
        lines.append(
            terminal_cell(
                f"Not compared (recorded on one side only): {', '.join(result.not_compared)}"
            )
        )
    return render_to_text(*lines, color=color)
