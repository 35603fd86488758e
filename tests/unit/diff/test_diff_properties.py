"""Properties over random edits of the full fixture manifest."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envsnap.diff import diff_documents
from tests.helpers import FIXTURES

BASE: dict[str, Any] = json.loads((FIXTURES / "manifests" / "full.json").read_text("utf-8"))


def _leaf_paths(node: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(node, dict) and node:
        out: list[tuple[str, ...]] = []
        for key, value in node.items():
            out += _leaf_paths(value, (*prefix, key))
        return out
    return [prefix] if prefix else []


LEAVES = sorted(p for p in _leaf_paths(BASE) if p[0] != "digest")
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.text(max_size=12),
    st.sampled_from(["2.4.1+cu121", "1.12.0", "0.19.0", "4.46.0", "9.0", "Hopper", "yes"]),
)


@st.composite
def edited(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    for path in draw(st.lists(st.sampled_from(LEAVES), max_size=6, unique=True)):
        node = doc
        for part in path[:-1]:
            node = node[part]
        if draw(st.booleans()) and path[-1] not in ("version",):
            node.pop(path[-1], None)
        else:
            node[path[-1]] = draw(VALUES)
    if draw(st.booleans()):
        doc[draw(st.sampled_from(["gpu", "torch", "parallel", "data", "seeds"]))] = None
    return doc


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.sampled_from(["bitwise", "close", "conclusion"]))
def test_a_manifest_against_itself_has_nothing_above_info(doc: dict[str, Any], target: str) -> None:
    """Nothing differs: only what both sides leave random (a shared risk) may rank above info."""
    report = diff_documents(doc, copy.deepcopy(doc), target=target)  # type: ignore[arg-type]
    assert all(f.severity == "info" for f in report.findings if f.basis != "shared")
    assert all(f.rule.startswith("shared.") for f in report.findings if f.basis == "shared")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), edited())
def test_diff_is_symmetric_in_paths(a: dict[str, Any], b: dict[str, Any]) -> None:
    forward = sorted((f.rule, f.path) for f in diff_documents(a, b).findings)
    backward = sorted((f.rule, f.path) for f in diff_documents(b, a).findings)
    assert [p for _, p in forward] == [p for _, p in backward]
