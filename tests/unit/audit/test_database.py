"""The bundled advisory database: every file is valid OSV, and every advisory fires on its
triggering manifest and stays silent on its near miss."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jsonschema
import pytest

from envsnap.audit import audit_document, load
from envsnap.audit.database import bundled
from envsnap.manifest.model import manifest_from_document
from tests.helpers import REPO_ROOT
from tests.helpers.advisories import CASES, FULL, near_miss, trigger

OSV_SCHEMA = json.loads((REPO_ROOT / "tests" / "schemas" / "osv-schema.json").read_text("utf-8"))
DB_FILES = sorted(
    entry
    for entry in (resources.files("envsnap.audit") / "db").iterdir()
    if entry.name.endswith(".json")
)
IDS = [advisory.id for advisory in bundled().advisories]


def _ids(doc: dict[str, Any]) -> dict[str, str]:
    return {f.id: f.status for f in audit_document(doc, load())}


def test_database_has_at_least_forty_advisories_with_cases() -> None:
    assert len(IDS) >= 40
    assert sorted(CASES) == sorted(IDS)


@pytest.mark.parametrize("entry", DB_FILES, ids=lambda e: e.name)
def test_file_is_valid_osv(entry: Any) -> None:
    document = json.loads(entry.read_bytes())
    jsonschema.Draft202012Validator(
        OSV_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(document)
    assert entry.name == f"{document['id']}.json"
    spec = document["database_specific"]["envsnap"]
    assert set(spec["severity"]) == {"bitwise", "close", "conclusion"}
    assert spec["workaround"] and document["references"]
    assert all(a["package"]["ecosystem"] == "PyPI" for a in document["affected"])


@pytest.mark.parametrize("advisory_id", IDS)
def test_trigger_fires_and_near_miss_does_not(advisory_id: str) -> None:
    hit, miss = trigger(advisory_id), near_miss(advisory_id)
    # Edited fixtures stay valid manifests: the facts are ones a capture could record.
    manifest_from_document(hit, "trigger.json")
    manifest_from_document(miss, "near-miss.json")
    assert _ids(hit).get(advisory_id) == "affected", CASES[advisory_id]
    assert advisory_id not in _ids(miss), CASES[advisory_id]["near_miss_is"]


def test_the_unedited_fixture_only_meets_default_behaviour_advisories() -> None:
    # full.json is an A100 run with deterministic settings: only defaults every such run has.
    # It says nothing about torch.compile (Inductor not imported, the model not wrapped), so
    # the compile advisories may apply: unknown, never affected.
    statuses = _ids(FULL)
    affected = {ident for ident, status in statuses.items() if status == "affected"}
    assert affected == {"ENVSNAP-2020-0001", "ENVSNAP-2022-0003", "ENVSNAP-2023-0005"}
    assert set(statuses) - affected == COMPILE_ADVISORIES


COMPILE_ADVISORIES = {"ENVSNAP-2023-0003", "ENVSNAP-2024-0003", "ENVSNAP-2024-0004"}
