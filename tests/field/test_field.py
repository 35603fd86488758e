"""The field corpus: every case follows the v3 format, the corpus is large and broad enough,
every capture is present and current, no note outranks a real difference in any pair, and the
differ's score per half does not fall below the measured floor (docs/field.md)."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from envsnap.diff.report import Target
from envsnap.manifest.sealed import verify_document
from tests.field.format import problems
from tests.field.noise import DRAWS
from tests.field.pairs import CASES_DIR, captured_path, load_cases, read_captured
from tests.field.routes.capture import digest
from tests.field.score import Outcome, case_draws, note_above_difference, score, summary
from tests.field.split import FRESH, Half, half

# Floors per half and target: (top-1 cases, top-3 cases), every draw counted; the values
# measured on 2026-12-07 (docs/field.md), so that a change that loses a case fails here.
FLOOR: dict[tuple[Half, Target], tuple[int, int]] = {
    ("dev", "close"): (364, 366),
    ("eval", "close"): (359, 366),
}
CASE_FILES = sorted(CASES_DIR.glob("*.json"))
_GITHUB_THREAD = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)")


@cache
def _cases() -> tuple[dict[str, Any], ...]:
    return tuple(load_cases())


@cache
def _buildable() -> tuple[dict[str, Any], ...]:
    """Cases that follow the format and whose captures are all present (the other tests
    fail for the rest, each with its own message)."""
    out = []
    for case in _cases():
        if problems(case, case.get("id")):
            continue
        if case["route"] != "imported" and not all(
            captured_path(case["id"], index, side).is_file()
            for index in range(DRAWS)
            for side in ("a", "b")
        ):
            continue
        out.append(case)
    return tuple(out)


@cache
def _outcomes() -> tuple[Outcome, ...]:
    return tuple(score(_buildable()))


def _thread(url: str) -> str:
    """A GitHub thread's identity: issues and pull requests of one repository share numbers."""
    found = _GITHUB_THREAD.match(url)
    return f"{found[1].lower()}#{found[2]}" if found else url


@pytest.mark.parametrize("path", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_case_follows_the_v3_format(path: Any) -> None:
    found = problems(json.loads(path.read_text(encoding="utf-8")), path.stem)
    assert not found, f"{path.name}: " + "; ".join(found)


def test_corpus_is_large_and_broad() -> None:
    cases = _cases()
    assert len({case.get("id") for case in cases}) == len(cases), "duplicate case ids"
    # One case per incident thread: a thread built twice would count its mechanism twice.
    threads = Counter(_thread(str(case.get("source"))) for case in cases)
    repeated = sorted(thread for thread, count in threads.items() if count > 1)
    assert not repeated, f"threads with more than one case: {repeated}"
    assert len(cases) >= 110, f"{len(cases)} cases, fewer than 110"
    categories = [(case.get("label") or {}).get("category") for case in cases]
    device_side = sum(category in ("hardware", "cuda-stack") for category in categories)
    assert device_side >= 0.4 * len(cases), (
        f"{device_side}/{len(cases)} hardware or cuda-stack cases, under 40%"
    )
    imported = sum(case.get("route") == "imported" for case in cases)
    assert imported >= 0.3 * len(cases), f"{imported}/{len(cases)} imported cases, under 30%"
    # The fresh cases (split.FRESH) are cases of the corpus, under their own ids.
    assert {case.get("id") for case in cases} >= FRESH, "a fresh id names no case"


def test_every_capture_is_present_sealed_and_current() -> None:
    stale: list[str] = []
    for case in _cases():
        if case.get("route") not in ("capture", "nvml") or problems(case, case.get("id")):
            continue
        for index in range(DRAWS):
            wanted = digest(case, index)
            for side in ("a", "b"):
                path = captured_path(case["id"], index, side)
                if not path.is_file():
                    stale.append(f"{case['id']} draw {index} {side}: not captured")
                    continue
                document = read_captured(path)
                if not verify_document(document)[0]:
                    stale.append(f"{path}: digest does not verify")
                recorded = (document.get("extra") or {}).get("field_capture", {}).get("digest")
                if recorded != wanted:
                    stale.append(f"{case['id']} draw {index} {side}: captured from an older case")
    assert not stale, (
        f"{len(stale)} captures missing or stale (run python -m tests.field.capture):\n"
        + "\n".join(stale[:20])
    )


def test_no_note_outranks_a_real_difference() -> None:
    found: list[str] = []
    for case in _buildable():
        for drawn in case_draws(case):
            for target, report in drawn.reports.items():
                pair = note_above_difference(report)
                if pair is not None:
                    note, real = pair
                    found.append(
                        f"{case['id']} draw {drawn.index} {target}: {note.rule} ({note.basis}, "
                        f"rank {note.rank}) above {real.rule} ({real.basis}, rank {real.rank})"
                    )
    assert not found, f"{len(found)} notes above real differences:\n" + "\n".join(found[:20])


@pytest.mark.parametrize(("half_name", "target"), sorted(FLOOR))
def test_score_stays_at_or_above_the_floor(half_name: Half, target: Target) -> None:
    mine = [o for o in _outcomes() if half(o.case) == half_name]
    top1, top3, total = summary(mine, target)
    top1_floor, top3_floor = FLOOR[(half_name, target)]
    assert top1 >= top1_floor, f"{half_name} {target}: top-1 {top1}/{total} < {top1_floor}"
    assert top3 >= top3_floor, f"{half_name} {target}: top-3 {top3}/{total} < {top3_floor}"
