"""Python 3.3 salts str hashing per process by default: a pair across 3.3 changes set order of
strings on the newer side unless that side fixed PYTHONHASHSEED."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _pair(old: str, new: str, seed: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for doc, version in ((a, old), (b, new)):
        doc["python"]["version"] = version
        doc["python"]["hash_randomization"] = None  # as an imported report leaves it
        doc["env"]["variables"].pop("PYTHONHASHSEED", None)
        doc["seeds"]["pythonhashseed"] = None
    if seed is not None:  # fixed on both sides, as a launcher does
        a["env"]["variables"]["PYTHONHASHSEED"] = b["env"]["variables"]["PYTHONHASHSEED"] = seed
    return a, b


def _hash_findings(a: dict[str, Any], b: dict[str, Any]) -> list[Any]:
    """The findings the hash default is behind: its own, or the Python step's it comes from."""
    return [f for f in diff_documents(a, b).findings if "randomness.pythonhashseed" in f.rules]


def test_crossing_3_3_without_a_fixed_seed_is_the_hash_seed_cause_inferred() -> None:
    (found,) = _hash_findings(*_pair("2.7.18", "3.5.2", None))
    # One cause: the interpreter step, acting through the salted hash.
    assert found.rank == 1 and found.severity == "high" and found.rule == "stack.python"
    assert "through it: Python 2.7.18 → 3.5.2 crosses 3.3" in found.title
    assert "on B" in found.title
    salted = next(e for e in found.evidence if e.path == "python.hash_randomization")
    assert salted.inferred and "PYTHONHASHSEED was set is not recorded" in salted.inferred


def test_a_fixed_seed_on_the_newer_side_or_no_crossing_is_no_such_finding() -> None:
    assert _hash_findings(*_pair("2.7.18", "3.5.2", "0")) == []
    assert _hash_findings(*_pair("3.8.10", "3.10.12", None)) == []
