"""Structural changes: lists keyed by identity, not by position."""

from __future__ import annotations

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def test_inserting_a_submodule_is_one_addition_not_a_shift() -> None:
    a, b = full_pair()
    a["code"]["submodules"] = [{"path": "vendor/x", "commit": "1" * 40, "state": "clean"}]
    b["code"]["submodules"] = [
        {"path": "vendor/a", "commit": "2" * 40, "state": "clean"},
        {"path": "vendor/x", "commit": "1" * 40, "state": "clean"},
    ]
    paths = {f.path for f in diff_documents(a, b).findings if f.path.startswith("code.submodules")}
    assert paths == {"code.submodules.vendor/a"}
