"""The published schema must equal the one generated from the models, byte for byte."""

from __future__ import annotations

import json
from typing import Any

from envsnap.manifest.model import schema_text
from tests.helpers import REPO_ROOT
from tests.helpers.schemas import published_schema_bytes

SCHEMA_FILE = REPO_ROOT / "schemas" / "manifest.v1.json"


@published_schema_bytes
def test_manifest_schema_file_matches_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "schemas/manifest.v1.json is stale: run `envsnap schema > schemas/manifest.v1.json`"
    )


def _properties_without_description(node: Any, where: str, missing: list[str]) -> None:
    if isinstance(node, dict):
        for name, prop in node.get("properties", {}).items():
            if isinstance(prop, dict) and "description" not in prop:
                missing.append(f"{where}.{name}")
        for key, value in node.items():
            _properties_without_description(value, f"{where}.{key}", missing)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _properties_without_description(value, f"{where}[{index}]", missing)


def test_every_schema_property_has_a_description() -> None:
    missing: list[str] = []
    _properties_without_description(json.loads(schema_text()), "$", missing)
    assert missing == []
