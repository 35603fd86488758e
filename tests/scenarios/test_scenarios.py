"""Each labelled pair's expected cause ranks first, and no noise outranks it.

A finding names one cause; several rules can describe it (a TF32 flag, the effective TF32
state, the override variable are one finding), so the expected rule matches the finding's rule
or any rule merged into the same cause, and former rule ids match through the alias table.
"""

from __future__ import annotations

import pytest

from envsnap.audit.diffhook import advisory_hits
from envsnap.diff import diff_documents
from envsnap.diff.catalog import CATALOG, RULES_BY_ID, cause_name
from envsnap.diff.catalog.aliases import canonical
from envsnap.diff.changes import compute_changes
from envsnap.diff.derived import derived_hits
from envsnap.diff.probe_evidence import probe_hits
from envsnap.diff.rank import hits_for
from envsnap.diff.report import SEVERITY_RANK
from envsnap.manifest.model import manifest_from_document
from tests.scenarios.cases import CASES, Case


def same_cause(found: str, expected: str) -> bool:
    """True when the finding's rule is the expected one, or shares its merged cause."""
    return cause_name(found) == cause_name(canonical(expected))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_expected_cause_ranks_first(case: Case) -> None:
    doc_a, doc_b = case.pair()
    report = diff_documents(doc_a, doc_b)
    top = report.findings[0]
    shown = [(f.rule, f.severity, f.path) for f in report.findings[:5]]
    if RULES_BY_ID[canonical(case.expected)].category == "noise":
        # Noise-only pairs: nothing above info, and the expected noise rule is reported.
        assert all(f.severity == "info" for f in report.findings), shown
        assert case.expected in {f.rule for f in report.findings}
        return
    # The expected rule titles the top finding, or is a way its cause acts (Finding.rules).
    assert any(same_cause(rule, case.expected) for rule in (top.rule, *top.rules)), shown
    noise = [f for f in report.findings if f.category == "noise"]
    assert noise, "every pair carries noise"
    assert all(
        SEVERITY_RANK[f.severity] < SEVERITY_RANK[top.severity] or f.rank > top.rank for f in noise
    )
    assert all(f.severity == "info" for f in noise)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_both_sides_are_valid_manifests(case: Case) -> None:
    doc_a, doc_b = case.pair()
    manifest_from_document(doc_a, "a")
    manifest_from_document(doc_b, "b")


def test_suite_is_large_enough_and_ids_unique() -> None:
    assert len(CASES) >= 30
    assert len({case.id for case in CASES}) == len(CASES)


def test_every_rule_has_a_scenario() -> None:
    """Every rule of the catalog fires in at least one labelled pair."""
    fired: set[str] = set()
    for case in CASES:
        doc_a, doc_b = case.pair()
        hits = hits_for(compute_changes(doc_a, doc_b), "close") + derived_hits(doc_a, doc_b)
        hits += advisory_hits(doc_a, doc_b)  # the audit's hook, called beside derived_hits
        hits += probe_hits(doc_a, doc_b)  # what the probe measured, called beside them too
        fired.update(hit.rule for hit in hits)
    missing = [rule.id for rule in CATALOG if rule.id not in fired]
    assert missing == []
