"""The audit inside `envsnap diff` (an advisory on one side only is a ranked finding), `envsnap
report` (a section of advisories) and `envsnap export cyclonedx` (the BOM's vulnerabilities)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.audit import audit_document, load
from envsnap.diff import diff_documents
from envsnap.manifest.model import manifest_from_document
from tests.helpers import CliResult
from tests.helpers.advisories import CASES, FULL, edited, near_miss, trigger

Run = Callable[..., CliResult]


def test_diff_reports_an_advisory_that_applies_to_one_side_only() -> None:
    report = diff_documents(FULL, trigger("ENVSNAP-2024-0001"), target="conclusion")
    found = [f for f in report.findings if f.rule == "advisory.one-side"]
    sdpa = next(f for f in found if "ENVSNAP-2024-0001" in f.title)
    assert sdpa.severity == "critical" and "applies to B only" in sdpa.title
    assert report.findings[0].severity == "critical"


def test_diff_of_identical_sides_has_no_advisory_finding() -> None:
    report = diff_documents(FULL, FULL)
    assert not [f for f in report.findings if f.rule == "advisory.one-side"]


def _sealed(tmp_path: Path, doc: dict[str, Any], name: str) -> str:
    from envsnap.manifest.canonical import digest_of, pretty_text

    doc = {**doc, "digest": digest_of(doc)}
    path = tmp_path / name
    path.write_text(pretty_text(doc), encoding="utf-8")
    return str(path)


# tokenizer.class_name reaches the report through "why it applies": markup in it must not.
NLLB_WITH_MARKUP = "NllbTokenizer<script>alert(1)</script>|**x**"


def test_report_lists_applicable_advisories_escaped_in_html_and_markdown(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = edited(CASES["ENVSNAP-2023-0007"]["trigger"], {"tokenizer.class_name": NLLB_WITH_MARKUP})
    path = _sealed(tmp_path, doc, "nllb.json")
    html = run_cli("report", path)
    assert html.code == 0, html.err
    assert "Known bugs and default changes" in html.out and "ENVSNAP-2023-0007" in html.out
    assert "<script>alert" not in html.out and "&lt;script&gt;alert(1)" in html.out
    markdown = run_cli("report", path, "--format", "markdown")
    assert markdown.code == 0, markdown.err
    row = next(line for line in markdown.out.splitlines() if "| ENVSNAP-2023-0007 |" in line)
    assert "<script>" not in row and "\\|\\*\\*x\\*\\*" in row
    assert len(re.findall(r"(?<!\\)\|", row)) == 7  # six cells: the pipe stays inside one


def test_report_section_lists_exactly_the_advisories_the_audit_finds(
    tmp_path: Path, run_cli: Run
) -> None:
    doc = trigger("ENVSNAP-2024-0009")
    result = run_cli("report", _sealed(tmp_path, doc, "ga.json"), "--format", "markdown")
    section = result.out.split("## Known bugs and default changes (envsnap audit)")[1]
    rows = [line for line in section.split("\n## ")[0].splitlines() if line.startswith("| ENV")]
    listed = {row.split(" | ")[0].removeprefix("| ") for row in rows}
    assert listed == {f.id for f in audit_document(doc, load())}
    assert "ENVSNAP-2024-0009" in listed


def test_cyclonedx_vulnerabilities_name_the_affected_components() -> None:
    pytest.importorskip("cyclonedx")
    from envsnap.interop.export.cyclonedx import to_cyclonedx_json, validate_cyclonedx_json

    doc = trigger("ENVSNAP-2024-0001")
    text = to_cyclonedx_json(manifest_from_document(doc, "hopper.json"))
    assert validate_cyclonedx_json(text) is None
    bom = json.loads(text)
    refs = {c["bom-ref"] for c in bom["components"]} | {bom["metadata"]["component"]["bom-ref"]}
    found = {v["id"]: v for v in bom["vulnerabilities"]}
    expected = {f.id for f in audit_document(doc, load()) if f.status == "affected"}
    assert set(found) == expected and "ENVSNAP-2024-0001" in found
    sdpa = found["ENVSNAP-2024-0001"]
    assert sdpa["affects"] == [{"ref": "pkg:torch"}]
    assert sdpa["source"]["url"].startswith("https://github.com/pytorch/pytorch/")
    assert {r["severity"] for r in sdpa["ratings"]} == {"high", "critical"}
    assert "2.5.1" in sdpa["recommendation"]
    assert all(t["ref"] in refs for v in bom["vulnerabilities"] for t in v["affects"])


def test_cyclonedx_of_a_fixed_run_has_no_such_vulnerability() -> None:
    pytest.importorskip("cyclonedx")
    from envsnap.interop.export.cyclonedx import to_cyclonedx_json

    text = to_cyclonedx_json(manifest_from_document(near_miss("ENVSNAP-2024-0001"), "m.json"))
    ids = {v["id"] for v in json.loads(text).get("vulnerabilities", [])}
    assert "ENVSNAP-2024-0001" not in ids
