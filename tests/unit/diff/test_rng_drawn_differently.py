"""A generator both sides seeded from the same master seed starts from the same state, so a
state digest that differs at capture is a consequence: the job drew a different count of random
numbers before it, because something else changed. It ranks below that stated cause, for every
target; a seed that changed stays a cause of its own."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _pair(seed_b: int) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    b["seeds"]["master_seed"] = seed_b
    b["seeds"]["state_digests"] = {"python": "sha256:" + "7" * 64, "torch": "sha256:" + "8" * 64}
    # The stated cause: parameters stored in float64 on B.
    b["precision"]["params"] = {
        "float64": {"bytes": 995518464, "elements": 124439808, "tensors": 148}
    }
    return a, b


def test_a_state_drawn_differently_under_one_seed_follows_the_stated_cause() -> None:
    for target in ("bitwise", "close", "conclusion"):
        findings = diff_documents(*_pair(1234), target=target).findings
        rules = [f.rule for f in findings]
        assert rules[0] == "precision.dtypes", (target, rules[:3])
        states = [f for f in findings if f.rule == "randomness.seed"]
        assert len(states) == 1
        assert states[0].title.startswith("RNG state differs under the same seed (python, torch)")
        assert states[0].severity in {"medium", "low", "info"}


def test_a_changed_master_seed_stays_a_cause() -> None:
    findings = diff_documents(*_pair(99), target="bitwise").findings
    seed = [f for f in findings if f.rule == "randomness.seed"]
    assert seed and seed[0].severity == "high"
    assert "same seed" not in seed[0].title
