"""Version steps: pre-releases count for the default flips they cross."""

from __future__ import annotations

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def test_release_candidates_cross_default_flips() -> None:
    a, b = full_pair()
    b["packages"]["installed"]["numpy"]["version"] = "2.0.0rc1"
    rules = {rule for f in diff_documents(a, b).findings for rule in f.rules}
    assert "flip.numpy-2.0-nep50" in rules
