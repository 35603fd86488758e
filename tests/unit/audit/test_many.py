"""The many-manifest path (read, parse, scan in workers; findings built where shown) gives the
same results as auditing each manifest on its own, with either JSON parser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envsnap.audit import load, loads
from envsnap.audit.many import audit_many, scan_many
from envsnap.audit.sources import audit_path, audit_path_safely
from envsnap.manifest.seal_check import STRICT_ENV, refuse_mismatches
from tests.helpers.advisories import CASES, FULL, edited, near_miss, trigger


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    directory = tmp_path_factory.mktemp("fleet")
    docs = [FULL] + [trigger(i) for i in sorted(CASES)] + [near_miss(i) for i in sorted(CASES)]
    paths = []
    for index, doc in enumerate(docs):
        path = directory / f"run-{index:03d}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_many_path_equals_one_by_one(fleet: list[str], jobs: int) -> None:
    database = load()
    many = [r.model_dump() for r in audit_many(fleet, target="conclusion", jobs=jobs)]
    alone = [audit_path(p, database, "conclusion", ()).model_dump() for p in fleet]
    assert many == alone
    assert sum(len(r["findings"]) for r in many) > len(fleet)  # the fleet does trigger


@pytest.mark.slow
def test_ignore_reaches_the_workers(fleet: list[str]) -> None:
    hits = {h.id for v in scan_many(fleet, ignore=["ENVSNAP-2024-0001"], jobs=2) for h in v.hits}
    assert "ENVSNAP-2024-0001" not in hits and "ENVSNAP-2024-0009" in hits


def test_stdlib_parser_gives_the_same_verdicts(
    fleet: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = list(scan_many(fleet, jobs=1))
    monkeypatch.setattr(loads, "_PARSE", loads._stdlib)
    assert loads.engine() == "json"
    assert list(scan_many(fleet, jobs=1)) == fast


@pytest.mark.parametrize("parser", ["default", "stdlib"])
@pytest.mark.parametrize(
    "data", [b'{"a": NaN}', b'{"a": Infinity}', b"[1, 2]", b'{"a": 1', b"\xff\xfe{}", b""]
)
def test_parser_refuses_what_the_strict_reader_refuses(
    parser: str, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    if parser == "stdlib":
        monkeypatch.setattr(loads, "_PARSE", loads._stdlib)
    assert loads.loads_object(data) is None


def test_bad_file_in_a_fleet_is_the_strict_readers_one_line_error(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(FULL), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "1.0", "x": NaN}', encoding="utf-8")
    verdicts = list(scan_many([str(good), str(bad)], jobs=1))
    assert verdicts[0].error is None and verdicts[0].hits
    assert verdicts[1].error is not None and "not valid JSON" in verdicts[1].error
    assert "\n" not in verdicts[1].error


def test_plan_caches_stay_bounded_when_every_manifest_has_a_new_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from envsnap.audit import scan as scan_module
    from envsnap.audit.scan import Plan, scan
    from tests.helpers.advisories import edited

    monkeypatch.setattr(scan_module, "CACHE_LIMIT", 8)
    plan = Plan(load())
    hopper = trigger("ENVSNAP-2024-0001")
    for patch in range(40):
        doc = edited({"packages.installed.torch.version": f"2.5.{patch}"}, base=hopper)
        hits = {h.id for h in scan(plan, doc)}
        assert ("ENVSNAP-2024-0001" in hits) == (patch == 0)  # only 2.5.0 is affected
        assert len(plan._in_range) <= 8 and len(plan._candidates) <= 8


def _written(directory: Path, name: str, doc: dict[str, Any]) -> str:
    path = directory / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_manifest_the_model_refuses_is_that_files_error_in_a_fleet(
    tmp_path: Path, jobs: int
) -> None:
    database = load()
    good = _written(tmp_path, "a-good.json", FULL)
    garbage = _written(tmp_path, "b-garbage.json", {**FULL, "torch": "garbage"})
    bad_int = edited({"system.cpu.logical_cores": "8"})  # strict: a string is no integer
    coerced = _written(tmp_path, "c-coerced.json", bad_int)
    paths = [good, garbage, coerced]
    many = list(audit_many(paths, jobs=jobs))
    alone = [audit_path_safely(p, database, "close", ()) for p in paths]
    assert [r.model_dump() for r in many] == [r.model_dump() for r in alone]
    assert many[0].error is None and many[0].findings
    for result in many[1:]:
        assert result.error is not None and "not a valid envsnap manifest" in result.error
        assert "\n" not in result.error and result.findings == []
    assert "torch" in (many[1].error or "") and "logical_cores" in (many[2].error or "")


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_an_edited_sealed_manifest_is_refused_under_strict_in_a_fleet(
    tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)
    sealed = _written(tmp_path, "a-sealed.json", FULL)
    edited_after_capture = _written(tmp_path, "b-edited.json", {**FULL, "extra": {"note": "x"}})
    paths = [sealed, edited_after_capture]
    refuse_mismatches(True)  # what `envsnap --strict` sets, in this process only
    try:
        verdicts = list(scan_many(paths, jobs=jobs))
        alone = audit_path_safely(edited_after_capture, load(), "close", ())
    finally:
        refuse_mismatches(False)
    assert verdicts[0].error is None and verdicts[0].hits
    assert verdicts[1].error == alone.error
    assert "digest does not match" in (verdicts[1].error or "")
    [unrefused] = scan_many([edited_after_capture], jobs=1)
    assert unrefused.error is None and unrefused.hits  # without --strict: a warning only
