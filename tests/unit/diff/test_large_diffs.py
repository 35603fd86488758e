"""What keeps a diff of many changed packages short and fast: a common cause's tail folds into
one finding that lists every change, rule lookups are shared between paths no pattern names,
plain versions are read without packaging's parser, and long evidence is written compactly."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from packaging.version import Version

from envsnap.diff import diff_documents
from envsnap.diff.catalog import CATALOG
from envsnap.diff.changes import Change
from envsnap.diff.grouping import FOLD_AFTER
from envsnap.diff.report import Report
from envsnap.diff.rules import RuleIndex, aspects
from envsnap.diff.versions import _parts, parse, step
from envsnap.manifest.canonical import pretty_text
from envsnap.render.findings import COMPACT_EVIDENCE, render_json, render_markdown, render_table
from tests.helpers import REPO_ROOT
from tests.helpers.manifests import full_pair
from tests.scenarios.cases import package

MINOR, PATCH = 10, 90  # bumped packages of each step


def _bumped_pair(minor: int, patch: int) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for i in range(minor + patch):
        package(f"pkg-{i:04d}", "1.0.0")(a)
        package(f"pkg-{i:04d}", "1.1.0" if i < minor else "1.0.1")(b)
    return a, b


def _package_findings(report: Report) -> list[Any]:
    return [f for f in report.findings if f.rule == "stack.package"]


def test_the_tail_of_a_common_cause_folds_into_one_finding_listing_every_change() -> None:
    report = diff_documents(*_bumped_pair(MINOR, PATCH))
    found = _package_findings(report)
    assert len(found) == FOLD_AFTER + 1
    kept, folded = found[:-1], found[-1]
    # The most notable stay their own findings: every minor step, then patches by path.
    assert [f.path for f in kept[:MINOR]] == [
        f"packages.installed.pkg-{i:04d}.version" for i in range(MINOR)
    ]
    assert all(len(f.evidence) == 1 for f in kept)
    folded_count = MINOR + PATCH - FOLD_AFTER
    assert f"{folded_count} more" in folded.title
    listed = [e.path for f in found for e in f.evidence]
    assert sorted(listed) == sorted(
        f"packages.installed.pkg-{i:04d}.version" for i in range(MINOR + PATCH)
    )
    assert folded.rank == kept[-1].rank + 1  # right after the ones it continues
    assert [f.rank for f in report.findings] == list(range(1, len(report.findings) + 1))


def test_up_to_the_limit_every_change_is_its_own_finding() -> None:
    report = diff_documents(*_bumped_pair(0, FOLD_AFTER))
    found = _package_findings(report)
    assert len(found) == FOLD_AFTER
    assert all("more like this" not in f.title for f in found)


def test_table_and_markdown_stay_short_and_json_keeps_every_change() -> None:
    report = diff_documents(*_bumped_pair(0, 2000), label_a="a", label_b="b")
    assert len(render_table(report, color=False, width=120).splitlines()) < 150
    assert len(render_markdown(report).splitlines()) < 60
    document = json.loads(render_json(report))
    schema = json.loads((REPO_ROOT / "schemas" / "diff-report.v1.json").read_text())
    jsonschema.validate(document, schema)
    paths = [e["path"] for f in document["findings"] for e in f["evidence"]]
    assert sum(p.startswith("packages.installed.pkg-") for p in paths) == 2000
    assert document == report.model_dump(mode="json")


def test_long_evidence_is_one_entry_per_line_and_short_reports_are_unchanged() -> None:
    report = diff_documents(*_bumped_pair(0, 500))
    text = render_json(report)
    folded = next(f for f in report.findings if len(f.evidence) > COMPACT_EVIDENCE)
    entry = folded.evidence[-1]
    line = json.dumps(entry.model_dump(mode="json"), sort_keys=True)
    assert f"\n{' ' * 8}{line}\n{' ' * 6}]" in text
    small = diff_documents(*_bumped_pair(0, 3))
    assert render_json(small) == pretty_text(small.model_dump(mode="json"))


def test_a_value_spelled_like_the_evidence_slot_stays_a_value() -> None:
    a, b = _bumped_pair(0, 200)
    b["packages"]["installed"]["pkg-0000"]["version"] = "evidence-0"
    b["run"]["label"] = '"evidence-0"]'
    report = diff_documents(a, b)
    assert json.loads(render_json(report)) == report.model_dump(mode="json")


# Paths that name packages the catalog knows, generic ones, and segments that spell pattern
# words in odd places: a memoised lookup must give what matching every rule gives.
PATHS = [
    ("packages", "installed", name, field)
    for name in (
        "torch",
        "numpy",
        "nvidia-cudnn-cu12",
        "nvidia-foo",
        "transformers",
        "pkg-0001",
        "pkg-0002",
        "version",
        "installed",
        "*",
        "x",
    )
    for field in ("version", "source", "installer", "shadowed")
] + [
    ("env", "variables", name)
    for name in ("CUBLAS_WORKSPACE_CONFIG", "PYTHONHASHSEED", "MY_VAR", "OTHER_VAR")
]


@pytest.mark.parametrize("kind", ["changed", "added", "removed"])
def test_memoised_rule_lookup_equals_matching_every_rule(kind: str) -> None:
    index = RuleIndex(CATALOG)
    for path in PATHS * 2:  # the second pass is answered from the memo
        change = Change(path, kind, "1.0", "2.0")  # type: ignore[arg-type]
        kinds = aspects(change)
        expected = [
            rule
            for rule in CATALOG
            if not rule.derived
            and (not rule.when or kinds.intersection(rule.when))
            and rule.matches_path(path)
        ]
        noise = [rule for rule in expected if rule.category == "noise"]
        assert index.matching(change) == (noise or expected), path
        for target in ("bitwise", "close", "conclusion"):
            claimed = index.claiming(change, kinds, target)  # type: ignore[arg-type]
            assert claimed == index.most_severe(noise or expected, target), (path, target)  # type: ignore[arg-type]


VERSIONS = [
    "1",
    "1.0",
    "1.0.0",
    "2.19.0",
    "2.19.0.post1",
    "1.0.dev3",
    "1.0.post2.dev1",
    "01.002",
    "1.0.post01",
    "10.4.5.6",
    "1.0rc1",
    "1.0-1",
    "1.0+cu121",
    "1!1.0",
    "v1.0",
    "1.0.POST1",
    "not a version",
    "",
]


@pytest.mark.parametrize("a", VERSIONS)
def test_the_fast_version_reader_reads_every_form_as_packaging_does(a: str) -> None:
    """`step` compares the parts `_parts` reads; for the plain forms it reads them without
    packaging's parser, so every part must equal what `Version` reads (or both refuse)."""
    fast, reference = _parts(a), parse(a)
    if reference is None:
        assert fast is None
        return
    assert fast is not None
    fields = ("epoch", "release", "pre", "post", "dev", "local")
    assert [getattr(fast, f) for f in fields] == [getattr(reference, f) for f in fields]
    for b in VERSIONS:  # and the steps between every pair still follow from those parts
        assert step(a, b) == step(b, a)
    assert parse("2.19.0.post1") == Version("2.19.0.post1")
