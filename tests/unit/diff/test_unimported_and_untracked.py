"""Differences the job could not have felt: a generic package the job had not imported when it
captured with its model, and untracked files none of which is Python code."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _package_pair(*, imported: bool | None, model: bool = True) -> tuple[dict[str, Any], ...]:
    a, b = full_pair()
    for doc, version in ((a, "1.0.0"), (b, "1.0.1")):
        package = doc["packages"]["installed"]["attrs"]
        package.update(version=version, imported=imported)
        if not model:
            doc["precision"]["model_class"] = None
    return a, b


def _finding(report: Any, rule: str) -> Any:
    return next(f for f in report.findings if f.rule == rule)


def test_a_package_neither_job_had_imported_is_info() -> None:
    found = _finding(diff_documents(*_package_pair(imported=False)), "stack.package")
    assert found.severity == "info"
    assert found.title == "package changed: attrs 1.0.0 → 1.0.1 (the job had not imported it)"


def test_a_package_the_job_imported_or_that_is_not_known_stays_a_difference() -> None:
    for pair in (_package_pair(imported=True), _package_pair(imported=None)):
        assert _finding(diff_documents(*pair), "stack.package").severity == "low"


def test_without_the_job_s_model_the_capture_may_precede_its_imports() -> None:
    pair = _package_pair(imported=False, model=False)
    assert _finding(diff_documents(*pair), "stack.package").severity == "low"


def _untracked_pair(python_a: int | None, python_b: int | None) -> tuple[dict[str, Any], ...]:
    a, b = full_pair()
    for doc, count, python in ((a, 2, python_a), (b, 3, python_b)):
        doc["code"].update(untracked_count=count, untracked_digest=str(count) * 40)
        doc["code"]["untracked_python"] = python
    return a, b


def test_untracked_files_without_python_code_cannot_change_results() -> None:
    found = _finding(diff_documents(*_untracked_pair(0, 0)), "code.untracked")
    assert found.severity == "info" and "none of them Python code" in found.title


def test_an_untracked_python_file_or_an_uncounted_side_stays_a_difference() -> None:
    for pair in (_untracked_pair(0, 1), _untracked_pair(None, 0)):
        assert _finding(diff_documents(*pair), "code.untracked").severity == "low"


def test_a_shared_risk_ranks_above_a_difference_that_explains_nothing() -> None:
    """A risk both sides share may explain a disagreement that no difference explains; it
    still ranks below every difference above info (docs/diff.md, Ranking)."""
    a, b = _package_pair(imported=False)
    for doc in (a, b):
        doc["seeds"]["pythonhashseed"] = None
        doc["env"]["variables"].pop("PYTHONHASHSEED", None)
    ranked = [(f.rule, f.severity) for f in diff_documents(a, b).findings]
    assert ranked == [("shared.hash-seed", "low"), ("stack.package", "info")]
    b["packages"]["installed"]["attrs"]["imported"] = True  # now a difference above info
    ranked = [(f.rule, f.severity) for f in diff_documents(a, b).findings]
    # (whether a job had imported it is bookkeeping of its own)
    assert ranked == [("stack.package", "low"), ("shared.hash-seed", "low"), ("noise.run", "info")]
