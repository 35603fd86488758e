"""A sealed document's JSON and Python forms are built section by section, and equal pydantic's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envsnap.capturing.run import capture_process
from envsnap.manifest.model import Manifest, manifest_from_document
from envsnap.manifest.sealed import SealedDocument
from tests.helpers import FIXTURES


def _full() -> Manifest:
    document = json.loads((FIXTURES / "manifests" / "full.json").read_text(encoding="utf-8"))
    return manifest_from_document(document, "full.json")


def _captured() -> Manifest:
    return capture_process(extra={"run": {"lr": 0.1, "tags": ["a", None]}, "steps": 3})


@pytest.mark.parametrize("make", [_full, _captured], ids=["full fixture", "capture"])
def test_forms_equal_pydantics(make: Any) -> None:
    manifest = make()
    # The sealed base's form (the manifest then drops fields that are unset by its own rules).
    assert SealedDocument.to_document(manifest) == manifest.model_dump(mode="json")
    assert manifest.to_native() == manifest.model_dump()


def test_a_capture_reads_back_as_written() -> None:
    """Assembled without validating the whole tree, a capture still validates on read,
    unchanged, and its digest still matches."""
    manifest = _captured()
    document = manifest.to_document()
    again = manifest_from_document(json.loads(manifest.to_json()), "captured")
    assert again.to_document() == document
    assert again.compute_digest() == manifest.digest


def test_extra_values_that_are_not_json_are_kept_as_text() -> None:
    manifest = capture_process(only=["python"], extra={"when": object(), "ratio": float("nan")})
    assert isinstance(manifest.extra["when"], str) and manifest.extra["ratio"] == "nan"
    again = manifest_from_document(manifest.to_document(), "captured")
    assert again.extra == manifest.extra
