"""Real captures of one job under three torch releases on one CPU machine
(tests/fixtures/probe/torch-versions/job.py says how they were made): what the probe measured
there, and what the differ makes of it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.env_meaning import cannot_act
from envsnap.diff.probe_evidence import FAMILY_NOUNS, compare_probes
from tests.helpers import FIXTURES

PAIRS = FIXTURES / "probe" / "torch-versions"


def _load(version: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((PAIRS / f"torch-{version}.json").read_text())
    return document


def test_the_captures_differ_in_the_torch_release_only() -> None:
    old, new = _load("2.9.1+cu128"), _load("2.13.0+cpu")
    assert (old["torch"]["version"], new["torch"]["version"]) == ("2.9.1+cu128", "2.13.0+cpu")
    assert old["system"]["cpu"] == new["system"]["cpu"]
    # torch 2.13 sets TORCHINDUCTOR_CACHE_DIR itself: a location, which cannot act.
    acting = [
        {k: v for k, v in doc["env"]["variables"].items() if not cannot_act(k)}
        for doc in (old, new)
    ]
    assert acting[0] == acting[1] == {"OMP_NUM_THREADS": "2", "PYTHONHASHSEED": "0"}


@pytest.mark.parametrize(
    ("old", "new"), [("2.9.1+cu128", "2.13.0+cpu"), ("2.13.0+cpu", "2.9.1+cu128")]
)
def test_a_release_whose_probe_differs_ranks_first_citing_the_probe(old: str, new: str) -> None:
    a, b = _load(old), _load(new)
    differing = [m for m in compare_probes(a, b) if m.differs]
    assert differing, "the fixture pair no longer measures a difference"
    top = diff_documents(a, b).findings[0]
    assert top.rule == "stack.torch"
    cited = {e.path for e in top.evidence if e.path.startswith("probe.")}
    assert cited == {path for m in differing for path, _, _ in m.evidence}
    assert f"probe: other bits from {FAMILY_NOUNS[differing[0].family]} on cpu" in top.title
    assert top.rank_reason is not None and "confirmed by the probe" in top.rank_reason
    assert not [f for f in diff_documents(a, b).findings if f.rule == "probe.numerics"]


def test_identical_probes_never_rule_out_a_torch_release() -> None:
    """2.13.0 and 2.14.1 computed every op of the suite to the same bits on this CPU; a
    release also changes what the probe does not run, so it stays a finding as it was."""
    a, b = _load("2.13.0+cpu"), _load("2.14.1+cu130")
    assert not any(m.differs for m in compare_probes(a, b))
    top = diff_documents(a, b).findings[0]
    assert top.rule == "stack.torch"
    assert top.rank_reason is not None and "probe" not in top.rank_reason
    assert "probe" not in top.title
