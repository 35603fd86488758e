"""envsnap's reader and the published schema agree on every field's type.

Mutations are generated from schemas/manifest.v1.json itself: for every typed field reachable
in a full manifest, a value of the wrong JSON type ("123" for an integer, 0 for a date-time,
"yes" for a boolean, a boolean for an integer...). Each must be refused by jsonschema AND by
envsnap's loader; a field that only one of them refuses is a disagreement.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from envsnap.errors import ManifestError
from envsnap.manifest.model import manifest_from_document
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
SCHEMA = json.loads((ROOT / "schemas" / "manifest.v1.json").read_text())
BASE = json.loads((ROOT / "tests" / "fixtures" / "manifests" / "full.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

# Wrong values per JSON type: each is of another JSON type than the one named.
WRONG: dict[str, list[Any]] = {
    "integer": ["123", True, 1.5, None],
    "number": ["1.5", True, None],
    "boolean": ["yes", 0, 1, None],
    "string": [0, True, None, []],
    "date-time": [0, None],
    "array": ["a", {}, None],
    "object": ["a", [], None],
}


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _types(node: dict[str, Any]) -> set[str]:
    """The JSON types a schema node allows (through anyOf/$ref)."""
    node = _resolve(node)
    if "anyOf" in node:
        return set().union(*(_types(option) for option in node["anyOf"]))
    if "const" in node or "enum" in node:
        return {"enum"}
    kind = node.get("type")
    if kind == "string" and node.get("format") == "date-time":
        return {"date-time"}
    if isinstance(kind, list):
        return set(kind)
    return {kind} if kind else {"any"}


def _objects(node: dict[str, Any]) -> list[dict[str, Any]]:
    node = _resolve(node)
    if "anyOf" in node:
        return [obj for option in node["anyOf"] for obj in _objects(option)]
    return [node] if node.get("type") == "object" else []


def _mutations(
    node: dict[str, Any], instance: Any, path: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], Any, dict[str, Any]]]:
    """(path, wrong value, schema of the object holding it) for every field under `node`
    that `instance` holds."""
    for obj in _objects(node):
        if not isinstance(instance, dict):
            return
        for name, child in obj.get("properties", {}).items():
            if name not in instance:
                continue
            allowed = _types(child)
            for kind in allowed & WRONG.keys():
                for wrong in WRONG[kind]:
                    if _json_type(wrong) not in allowed | (
                        {"number"} if kind == "integer" else set()
                    ):
                        yield (*path, name), wrong, obj
            yield from _mutations(child, instance[name], (*path, name))
            items = _resolve(child).get("items")
            if items and isinstance(instance[name], list) and instance[name]:
                yield from _mutations(items, instance[name][0], (*path, name, 0))
        extra = obj.get("additionalProperties")
        if isinstance(extra, dict) and _objects(extra) and not obj.get("properties"):
            for key in list(instance)[:1]:
                yield from _mutations(extra, instance[key], (*path, key))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


MUTATIONS = list(_mutations(SCHEMA, BASE, ()))


def _apply(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(BASE)
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


def test_the_base_manifest_is_valid_for_both() -> None:
    VALIDATOR.validate(BASE)
    manifest_from_document(copy.deepcopy(BASE), "base")


def test_mutations_cover_the_schema() -> None:
    fields = {path for path, _, _ in MUTATIONS}
    assert len(fields) >= 150, len(fields)
    assert len(MUTATIONS) >= 400, len(MUTATIONS)


def test_every_wrong_type_is_refused_by_both() -> None:
    disagreements = []
    document = copy.deepcopy(BASE)
    for path, wrong, holder in MUTATIONS:
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        original, parent[path[-1]] = parent[path[-1]], wrong
        # The schema is checked on the object holding the field, against that object's own
        # schema node (the rest of the document is the valid base): same verdict, far faster.
        schema_refuses = not jsonschema.Draft202012Validator(
            {**holder, "$defs": SCHEMA["$defs"]}
        ).is_valid(parent)
        try:
            manifest_from_document(document, "mutated")
            envsnap_refuses = False
        except ManifestError:
            envsnap_refuses = True
        parent[path[-1]] = original
        if not (schema_refuses and envsnap_refuses):
            disagreements.append((".".join(map(str, path)), wrong, schema_refuses, envsnap_refuses))
    assert not disagreements, disagreements[:20]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("run", "pid"), "123"),
        (("created_at",), 0),
        (("code", "dirty"), "yes"),
        (("seeds", "master_seed"), "1234"),
        (("code", "detached"), 1),
    ],
)
def test_the_reported_coercions_are_refused(path: tuple[str, ...], value: Any) -> None:
    with pytest.raises(ManifestError, match=path[-1]):
        manifest_from_document(_apply(path, value), "mutated")


def test_a_manifest_without_schema_version_is_refused_not_imported(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    document = copy.deepcopy(BASE)
    del document["schema_version"]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(document))
    for args in (["diff", str(path), str(path)], ["show", str(path)], ["check", str(path)]):
        result = run_cli(*args)
        assert result.code == 2, args
        assert "schema_version is missing" in result.err
        assert len(result.err.strip().splitlines()) == 1
