"""The large-input path of `diff`: package entries shared between the two sides and validated
in slices must find exactly what full validation finds."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.errors import ManifestError
from envsnap.manifest.canonical import pretty_text
from envsnap.manifest.model import (
    check_document,
    manifest_from_document,
    package_index,
    read_document,
)
from tests.helpers import FIXTURES, CliResult
from tests.scenarios.cases import package

Run = Callable[..., CliResult]
PACKAGES = 6_000  # over the validation slice, so the sliced path runs


@functools.cache
def _base() -> str:
    document = json.loads((FIXTURES / "manifests" / "full.json").read_text())
    for i in range(PACKAGES):
        package(f"pkg-{i:05d}", "1.0")(document)
    return json.dumps(document)


def _document(changed: int | None = None) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(_base())
    if changed is not None:
        document["packages"]["installed"][f"pkg-{changed:05d}"]["version"] = "2.0"
    return document


def test_shared_entries_are_the_same_objects_and_equal_content(tmp_path: Path) -> None:
    a_path, b_path = tmp_path / "a.json", tmp_path / "b.json"
    a_path.write_text(pretty_text(_document()))
    b_path.write_text(pretty_text(_document(changed=7)))
    a = read_document(a_path)
    b = read_document(b_path, reuse=package_index(a))
    assert b == read_document(b_path)  # sharing never changes what was read
    shared = [
        k
        for k in a["packages"]["installed"]
        if a["packages"]["installed"][k] is b["packages"]["installed"].get(k)
    ]
    assert len(shared) == len(a["packages"]["installed"]) - 1


@pytest.mark.parametrize(
    ("field", "value"), [("version", 1), ("source", "pypi"), ("shadowed", "x"), ("extra_key", 1)]
)
def test_sliced_validation_refuses_what_the_model_refuses(field: str, value: Any) -> None:
    document = _document()
    bad = copy.deepcopy(document)
    bad["packages"]["installed"]["pkg-05999"][field] = value
    with pytest.raises(ManifestError) as whole:
        manifest_from_document(bad, "m")
    with pytest.raises(ManifestError) as sliced:
        check_document(bad, "m")
    assert "packages.installed.pkg-05999" in str(whole.value)
    assert "packages.installed.pkg-05999" in str(sliced.value)
    check_document(document, "m")


def test_a_bad_entry_in_b_is_caught_even_when_a_has_the_same_name(
    tmp_path: Path, run_cli: Run
) -> None:
    a = _document()
    b = copy.deepcopy(a)
    b["packages"]["installed"]["pkg-00003"]["version"] = 3
    (tmp_path / "a.json").write_text(pretty_text(a))
    (tmp_path / "b.json").write_text(pretty_text(b))
    result = run_cli("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.code == 2
    assert "packages.installed.pkg-00003.version" in result.err


def test_a_diff_of_every_package_bumped_is_a_short_table_and_a_complete_json(
    tmp_path: Path, run_cli: Run
) -> None:
    a = _document()
    b = copy.deepcopy(a)
    for entry in b["packages"]["installed"].values():
        entry["version"] = f"{entry['version']}.post1"
    (tmp_path / "a.json").write_text(pretty_text(a))
    (tmp_path / "b.json").write_text(pretty_text(b))
    table = run_cli("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert table.code == 0, table.err
    assert len(table.out.splitlines()) < 150
    report = run_cli("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-f", "json")
    evidence = {e["path"] for f in json.loads(report.out)["findings"] for e in f["evidence"]}
    assert {f"packages.installed.{name}.version" for name in a["packages"]["installed"]} <= (
        evidence
    )
