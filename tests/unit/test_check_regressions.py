"""`envsnap check` says what it cannot know instead of claiming it."""

from __future__ import annotations

import copy
import json
from typing import Any

from envsnap.diff.check.runner import check_document
from tests.conftest import FIXTURES

FULL: dict[str, Any] = json.loads((FIXTURES / "manifests" / "full.json").read_text())


def _findings(document: dict[str, Any], target: str = "bitwise") -> dict[str, str]:
    report = check_document(document, target)  # type: ignore[arg-type]
    return {f.rule: f.severity for f in report.findings}


def test_dirty_tree_of_unknown_size_is_reported_as_unknown() -> None:
    document = copy.deepcopy(FULL)
    document["code"].update(dirty=True, diff_bytes=None, diff_sha256=None)
    assert _findings(document).get("check.dirty-tree") == "info"


def test_torch_flags_read_outside_the_job_are_not_claimed_as_the_jobs() -> None:
    job = copy.deepcopy(FULL)
    outside = copy.deepcopy(job)
    outside["torch"]["imported_by"] = "envsnap"
    from_job, from_outside = _findings(job), _findings(outside)
    assert from_job.get("check.tf32") == "high"
    assert from_outside.get("check.tf32") == "info"
