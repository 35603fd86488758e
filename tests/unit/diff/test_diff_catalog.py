"""Invariants of the rule catalog, checked against the fully populated fixture manifest."""

from __future__ import annotations

import json
from typing import Any

from envsnap.diff.catalog import CATALOG, RULES_BY_ID
from envsnap.diff.report import CATEGORY_WEIGHT, SEVERITIES
from envsnap.diff.rules import Rule, compile_pattern
from envsnap.manifest.model import manifest_from_document
from tests.helpers import FIXTURES

FULL = FIXTURES / "manifests" / "full.json"


def _paths(node: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    found = {prefix} if prefix else set()
    if isinstance(node, dict):
        for key, value in node.items():
            found |= _paths(value, (*prefix, str(key)))
    return found


def test_fixture_is_a_valid_sealed_manifest() -> None:
    document = json.loads(FULL.read_text(encoding="utf-8"))
    manifest = manifest_from_document(document, "full.json")
    assert manifest.compute_digest() == document["digest"]
    assert all(getattr(manifest, name) is not None for name in manifest.collectors)


def test_rule_ids_are_unique() -> None:
    assert len(RULES_BY_ID) == len(CATALOG)


def test_every_rule_matches_a_path_of_the_full_fixture() -> None:
    # The full fixture's GPU job holds no probe (its digests would not be this job's); the
    # probe's paths are those of a real CPU probe.
    probe = json.loads((FIXTURES / "probe" / "cpu_avx2_torch2.13.json").read_text())
    paths = _paths(json.loads(FULL.read_text(encoding="utf-8"))) | _paths({"probe": probe})
    dead = [rule.id for rule in CATALOG if not any(rule.matches_path(p) for p in paths)]
    assert dead == []


def test_every_rule_is_complete() -> None:
    for rule in CATALOG:
        assert rule.category in CATEGORY_WEIGHT
        assert all(level in SEVERITIES for level in rule.severity)
        assert rule.title and rule.why and rule.fix, rule.id
        if rule.category != "noise" and rule.id != "fallback":
            assert rule.refs, rule.id


def test_noise_rules_are_info_and_nothing_else_is() -> None:
    for rule in CATALOG:
        if rule.category == "noise":
            assert rule.severity == ("info", "info", "info")


def test_pattern_language() -> None:
    sep = "\x1f"
    assert compile_pattern("a.*.c").fullmatch(sep.join(["a", "b", "c"]))
    assert not compile_pattern("a.*.c").fullmatch(sep.join(["a", "b", "x", "c"]))
    assert compile_pattern("a.**.c").fullmatch(sep.join(["a", "b", "x", "c"]))
    assert compile_pattern("a.**").fullmatch("a")
    assert compile_pattern("**.*loss_norm*").fullmatch(sep.join(["p", "loss_normalization"]))
    assert compile_pattern("x.{u,v}").fullmatch(sep.join(["x", "v"]))
    assert not compile_pattern("x.{u,v}").fullmatch(sep.join(["x", "w"]))


def test_most_severe_rule_wins_whatever_the_order() -> None:
    from envsnap.diff.changes import Change
    from envsnap.diff.rules import RuleIndex

    low = Rule("t.low", ("a.b",), "stack", ("low", "low", "low"), "t", "w", "f", ("r",))
    high = Rule("t.high", ("a.*",), "stack", ("high", "high", "high"), "t", "w", "f", ("r",))
    change = Change(("a", "b"), "changed", 1, 2)
    for rules in ((low, high), (high, low)):
        index = RuleIndex(rules)
        assert index.most_severe(index.matching(change), "close") is high
