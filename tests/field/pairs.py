"""A case's manifest pair for one draw of the noise model, built through the case's route.

Imported pairs are built on the fly (rendering and importing a report takes milliseconds).
Capture and nvml pairs are real captures, too slow to rerun in every test: `python -m
tests.field.capture` writes them to `captured/<case>/<draw>/{a,b}.json.gz`, each carrying in
`extra.field_capture.digest` what it was captured from, and this module reads them back.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

from tests.field.routes.imported import import_side

HERE = Path(__file__).parent
CASES_DIR = HERE / "cases"
CAPTURED_DIR = HERE / "captured"
Case = dict[str, Any]
Doc = dict[str, Any]


class NotCaptured(LookupError):
    """A capture or nvml case whose captures are missing: run `python -m tests.field.capture`."""


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    return [
        json.loads(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.json"))
    ]


def captured_path(case_id: str, draw_index: int, side: str, root: Path = CAPTURED_DIR) -> Path:
    return root / case_id / str(draw_index) / f"{side}.json.gz"


def write_captured(path: Path, document: Doc) -> None:
    """Gzip with no timestamp and sorted keys, so an unchanged capture is an unchanged file
    apart from what the capture itself varies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(data)


def read_captured(path: Path) -> Doc:
    with gzip.open(path, "rb") as handle:
        document: Doc = json.loads(handle.read())
    return document


def pair(case: Case, draw_index: int, root: Path = CAPTURED_DIR) -> tuple[Doc, Doc]:
    """Side A's and side B's manifest documents."""
    if case["route"] == "imported":
        with tempfile.TemporaryDirectory(prefix="field-import-") as workdir:
            return (
                import_side(case, "a", draw_index, Path(workdir)),
                import_side(case, "b", draw_index, Path(workdir)),
            )
    paths = [captured_path(case["id"], draw_index, side, root) for side in ("a", "b")]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise NotCaptured(f"{case['id']} draw {draw_index}: no capture ({', '.join(missing)})")
    return read_captured(paths[0]), read_captured(paths[1])
