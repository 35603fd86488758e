"""A generic title names the thing that changed: which package, which data item."""

from __future__ import annotations

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _titles(a: dict, b: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {f.path: f.title for f in diff_documents(a, b).findings}


def test_a_package_title_names_the_package() -> None:
    a, b = full_pair()
    b["packages"]["installed"]["rich"]["version"] = "15.0.1"
    titles = _titles(a, b)
    assert titles["packages.installed.rich.version"] == "package changed: rich 15.0.0 → 15.0.1"


def test_a_data_item_title_names_the_item_and_the_field() -> None:
    a, b = full_pair()
    b["data"]["items"]["train"]["file_count"] = 99
    titles = _titles(a, b)
    assert titles["data.items.train.file_count"] == "training data changed: train file_count 2 → 99"
