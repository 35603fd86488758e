"""An unseeded torch generator: torch's newer releases draw its initial seed from OS entropy, so
two unseeded processes differ in torch's state as they do in python's and numpy's. That is what
an unseeded generator looks like, not a changed condition; a seed a job set by hand is."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _unseeded_pair(seed_a: int, seed_b: int) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for doc, seed, digest in ((a, seed_a, "1"), (b, seed_b, "2")):
        seeds = doc["seeds"]
        seeds.update(master_seed=None, seeded=[], derived={}, level="off", declared_by=None)
        seeds["torch_initial_seed"] = seed
        seeds["state_digests"] = {name: f"sha256:{digest * 64}" for name in ("numpy", "torch")}
    return a, b


def _seed_findings(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str, str]]:
    report = diff_documents(a, b)
    return [(f.rule, f.severity, f.title) for f in report.findings if f.rule == "randomness.seed"]


def test_torch_seeds_drawn_from_entropy_on_unseeded_sides_are_one_info_finding() -> None:
    found = _seed_findings(*_unseeded_pair(12269132514226537274, 17772239737344090042))
    assert found == [
        (
            "randomness.seed",
            "info",
            "RNG state differs (numpy, torch): seeded on neither side, so it starts from OS "
            "entropy in each process",
        )
    ]


def test_a_small_torch_seed_set_by_hand_stays_a_difference() -> None:
    found = _seed_findings(*_unseeded_pair(1, 2))
    assert any(severity != "info" for _, severity, _ in found)
    assert not any("torch" in title and "OS entropy" in title for _, _, title in found)


def test_with_no_seed_recorded_the_shared_risk_leads_every_target() -> None:
    # The differing states are the symptom of the seeds both jobs left open: for bitwise as
    # for close, the shared risk that names that comes first, the states after it at info.
    a, b = _unseeded_pair(12269132514226537274, 17772239737344090042)
    for doc in (a, b):
        doc["run"]["argv"] = ["train.py"]
    for target in ("bitwise", "close", "conclusion"):
        findings = [f for f in diff_documents(a, b, target=target).findings if f.severity != "info"]
        assert findings and findings[0].rule == "shared.no-seed", (target, findings[:2])
    states = [
        f for f in diff_documents(a, b, target="bitwise").findings if f.rule == "randomness.seed"
    ]
    assert states and all(f.severity == "info" for f in states)
