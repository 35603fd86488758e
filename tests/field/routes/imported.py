"""The imported route: one side is a collect_env report read by envsnap's own importer.

A side is either the report its thread posted (`tests/field/collect_env/<file>`, verbatim,
untouched by the noise model) or the report the named release's script prints for the facts
the thread states (`tests/field/reports.py`), with the noise model's harmless values filled in
where neither side states a field. Either way the text is written to a file and imported with
`envsnap.interop.importers.import_record`, as `envsnap import` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.interop.importers import import_record
from tests.field.noise import draw
from tests.field.reports import render

REPORTS_DIR = Path(__file__).resolve().parent.parent / "collect_env"
Case = dict[str, Any]


def report_text(case: Case, side: str, draw_index: int, reports: Path = REPORTS_DIR) -> str:
    """The side's report as the importer reads it."""
    spec = case[side]
    if "report" in spec:
        return (reports / spec["report"]).read_text(encoding="utf-8")
    noise = draw(case, side, draw_index)
    return render(str(spec["release"]), {**spec["facts"], **noise.report})


def import_side(
    case: Case, side: str, draw_index: int, workdir: Path, reports: Path = REPORTS_DIR
) -> dict[str, Any]:
    """The side's imported manifest document."""
    path = workdir / f"{case['id']}.{side}.txt"
    path.write_text(report_text(case, side, draw_index, reports), encoding="utf-8")
    return import_record(path, "collect-env").to_document()
