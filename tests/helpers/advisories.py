"""Manifests for advisory tests: the full fixture edited with the facts an advisory reads.

`tests/fixtures/audit/cases.json` holds, per advisory, the edits that make the fixture trigger
it and the further edits of its near miss (a fixed version, another GPU, the setting off).
An edit maps a dotted path to a value; "__delete__" removes the key.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.helpers.manifests import FULL
from tests.helpers.paths import FIXTURES

DELETE = "__delete__"
__all__ = ["CASES", "DELETE", "FULL", "edited", "near_miss", "trigger"]
CASES: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "audit" / "cases.json").read_text("utf-8")
)


def edited(*edits: dict[str, Any], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A deep copy of the full fixture (or `base`) with the edits applied in order."""
    doc = copy.deepcopy(FULL if base is None else base)
    for patch in edits:
        for dotted, value in patch.items():
            node = doc
            *parents, last = dotted.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            if value == DELETE:
                node.pop(last, None)
            else:
                node[last] = copy.deepcopy(value)
    return doc


def trigger(advisory_id: str) -> dict[str, Any]:
    return edited(CASES[advisory_id]["trigger"])


def near_miss(advisory_id: str) -> dict[str, Any]:
    case = CASES[advisory_id]
    return edited(case["trigger"], case["near_miss"])
