"""Renderer snapshots for a fixed report, plus the JSON schema contract.

Regenerate after an intended change: ENVSNAP_UPDATE_SNAPSHOTS=1 pytest this file.
"""

from __future__ import annotations

import json
import os

import jsonschema
import pytest

from envsnap.diff import diff_documents
from envsnap.diff.report import Report, report_schema_text
from envsnap.render.findings import RENDERERS, render_table
from tests.helpers import FIXTURES, REPO_ROOT
from tests.helpers.schemas import published_schema_bytes
from tests.scenarios.cases import CASES

SNAPSHOTS = FIXTURES / "manifests" / "snapshots"
SCHEMA_FILE = REPO_ROOT / "schemas" / "diff-report.v1.json"


def _report() -> Report:
    case = next(c for c in CASES if c.id == "micro-batch")
    return diff_documents(*case.pair(), label_a="a.json", label_b="b.json")


RENDERED = {
    "table": lambda r: render_table(r, color=False),
    "markdown": RENDERERS["markdown"],
    "json": RENDERERS["json"],
}


@pytest.mark.parametrize("fmt", sorted(RENDERED))
def test_snapshot(fmt: str) -> None:
    text = RENDERED[fmt](_report())
    path = SNAPSHOTS / f"micro-batch.{fmt}.txt"
    if os.environ.get("ENVSNAP_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_table_starts_with_the_verdict_and_has_no_colour_when_asked() -> None:
    report = _report()
    text = render_table(report, color=False)
    assert text.splitlines()[0] == report.summary.verdict
    assert "\x1b[" not in text
    assert "\x1b[" in render_table(report, color=True)


def test_json_follows_the_published_schema() -> None:
    document = json.loads(RENDERERS["json"](_report()))
    jsonschema.validate(document, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    assert [f["rank"] for f in document["findings"]] == list(
        range(1, len(document["findings"]) + 1)
    )
    assert set(document["findings"][0]) >= {
        "rank",
        "rule",
        "severity",
        "category",
        "path",
        "a",
        "b",
        "title",
        "why",
        "fix",
        "refs",
    }


@published_schema_bytes
def test_report_schema_file_matches_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == report_schema_text(), (
        "schemas/diff-report.v1.json is stale: run `envsnap diff --schema > "
        "schemas/diff-report.v1.json`"
    )


def test_empty_report_renders() -> None:
    case = next(c for c in CASES if c.id == "hostname-only")
    doc_a, _ = case.pair()
    report = diff_documents(doc_a, doc_a)
    for render in RENDERED.values():
        assert report.summary.verdict in render(report).replace("\\|", "|")


def _narrow_case_report() -> Report:
    """A report with long rule ids, long evidence paths, RNG fingerprints and wrapped why/fix."""
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    b["seeds"]["state_digests"]["python"] = "sha256:" + "8" * 64
    b["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
    b["torch"].pop("deterministic", None)
    return diff_documents(a, b, label_a="a.json", label_b="b.json")


def test_the_table_fits_80_columns_without_trailing_spaces_or_split_rule_ids() -> None:
    report = _narrow_case_report()
    text = render_table(report, color=False, width=80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert all(line == line.rstrip() for line in lines), [
        line for line in lines if line != line.rstrip()
    ]
    words = {word.strip("│·()") for line in lines for word in line.split()}
    for finding in report.findings:
        if finding.category != "noise":
            assert finding.rule in words, (finding.rule, text)


def test_an_rng_fingerprint_title_names_the_generator_and_keeps_the_hash_as_evidence() -> None:
    report = _narrow_case_report()
    seed = next(f for f in report.findings if f.rule == "randomness.seed")
    # One master seed on both sides: the state was drawn differently, and says which.
    assert seed.title.startswith("RNG state differs under the same seed (python)")
    assert "sha256" not in seed.title
    assert "sha256:" + "8" * 64 in [e.b for e in seed.evidence]
    assert "sha256" not in render_table(report, color=False, width=80).split("\n1. ")[0]
