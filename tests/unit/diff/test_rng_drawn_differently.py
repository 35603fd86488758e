"""A generator both sides seeded from the same master seed starts from the same state, so a
state digest that differs at capture is a consequence: the job drew a different count of random
numbers before it, because something else it ran changed. It ranks below a stated cause, for
every target; a seed that changed stays a cause of its own."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.report import Finding
from tests.helpers.manifests import full_pair

# The severity of a state drawn differently, per target.
DRAWN = {"bitwise": "medium", "close": "low", "conclusion": "info"}


def _pair(seed_b: int, *, dtype_changed: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    b["seeds"]["master_seed"] = seed_b
    b["seeds"]["state_digests"] = {"python": "sha256:" + "7" * 64, "torch": "sha256:" + "8" * 64}
    if dtype_changed:  # the stated cause: parameters stored in float64 on B
        entry = {"bytes": 995518464, "elements": 124439808, "tensors": 148}
        b["precision"]["params"] = {"float64": entry}
    return a, b


def _states(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "randomness.seed"]


def test_a_state_drawn_differently_under_one_seed_follows_the_stated_cause() -> None:
    for target, severity in DRAWN.items():
        findings = diff_documents(*_pair(1234), target=target).findings  # type: ignore[arg-type]
        assert findings[0].rule == "precision.dtypes", (target, [f.rule for f in findings[:3]])
        (state,) = _states(findings)
        assert state.title.startswith("RNG state differs under the same seed (python, torch)")
        assert state.severity == severity


def test_alone_it_still_leads_bitwise_as_the_one_sign_that_the_run_changed() -> None:
    findings = diff_documents(*_pair(1234, dtype_changed=False), target="bitwise").findings
    (state,) = _states(findings)
    assert (findings[0].rule, state.severity) == ("randomness.seed", "medium")


def test_a_changed_master_seed_stays_a_cause() -> None:
    (seed,) = _states(diff_documents(*_pair(99), target="bitwise").findings)
    assert seed.severity == "high"
    assert "same seed" not in seed.title


def test_another_torch_initial_seed_under_one_master_seed_is_not_a_drawing_difference() -> None:
    # Drawing numbers never changes torch.initial_seed(): another value means another seed.
    a, b = full_pair()
    b["seeds"]["torch_initial_seed"] = a["seeds"]["torch_initial_seed"] + 1
    (seed,) = _states(diff_documents(a, b, target="bitwise").findings)
    assert seed.severity == "high"
    assert "same seed" not in seed.title
