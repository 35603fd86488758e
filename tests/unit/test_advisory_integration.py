"""The audit inside `envsnap diff`: an advisory on one side only is a ranked finding."""

from __future__ import annotations

from envsnap.diff import diff_documents
from tests.advisory_cases import FULL, trigger


def test_diff_reports_an_advisory_that_applies_to_one_side_only() -> None:
    report = diff_documents(FULL, trigger("ENVSNAP-2024-0001"), target="conclusion")
    found = [f for f in report.findings if f.rule == "advisory.one-side"]
    sdpa = next(f for f in found if "ENVSNAP-2024-0001" in f.title)
    assert sdpa.severity == "critical" and "applies to B only" in sdpa.title
    assert report.findings[0].severity == "critical"


def test_diff_of_identical_sides_has_no_advisory_finding() -> None:
    report = diff_documents(FULL, FULL)
    assert not [f for f in report.findings if f.rule == "advisory.one-side"]
