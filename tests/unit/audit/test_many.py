"""The many-manifest path (read, parse, scan in workers; findings built where shown) gives the
same results as auditing each manifest on its own, with either JSON parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap.audit import load, loads
from envsnap.audit.many import audit_many, scan_many
from envsnap.audit.sources import audit_path
from tests.helpers.advisories import CASES, FULL, near_miss, trigger


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
