"""`envsnap audit` end to end: formats, SARIF validity, exit codes, directories, escaping."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.helpers import REPO_ROOT, CliResult
from tests.helpers.advisories import FULL, edited, trigger

SARIF_SCHEMA = json.loads(
    (REPO_ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text("utf-8")
)
Run = Callable[..., CliResult]


def _write(path: Path, doc: dict[str, Any]) -> str:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def test_sarif_output_is_valid_sarif_2_1_0(tmp_path: Path, run_cli: Run) -> None:
    hopper = _write(tmp_path / "hopper.json", trigger("ENVSNAP-2024-0001"))
    result = run_cli("audit", hopper, "-f", "sarif")
    assert result.code == 1
    log = json.loads(result.out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    ids = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert "ENVSNAP-2024-0001" in ids
    hit = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "ENVSNAP-2024-0001")
    assert hit["level"] == "error" and "9.0" in hit["message"]["text"]


def test_json_names_matched_facts_and_fix(tmp_path: Path, run_cli: Run) -> None:
    path = _write(tmp_path / "ga.json", trigger("ENVSNAP-2024-0009"))
    result = run_cli("audit", path, "-f", "json", "--target", "conclusion")
    finding = next(
        f
        for f in json.loads(result.out)["results"][0]["findings"]
        if f["id"] == "ENVSNAP-2024-0009"
    )
    assert finding["severity"] == "critical"
    assert finding["packages"] == {"transformers": "4.45.2"}
    assert {"fact": "parallel.grad_accum_steps", "values": [4]}.items() <= finding["facts"][
        0
    ].items()
    assert finding["fixed"] == ["transformers 4.46.0"]


def test_exit_codes_fail_on_and_ignore(tmp_path: Path, run_cli: Run) -> None:
    path = _write(tmp_path / "m.json", trigger("ENVSNAP-2024-0001"))
    assert run_cli("audit", path, "--fail-on", "critical").code == 0  # close: high at most
    assert run_cli("audit", path, "--fail-on", "critical", "--target", "conclusion").code == 1
    quiet = edited({"torch.cudnn.allow_tf32": False, "env.variables.NCCL_ALGO": "Tree"})
    clean = _write(tmp_path / "clean.json", quiet)
    assert run_cli("audit", clean, "--ignore", "ENVSNAP-2022-0003").code == 0
    assert run_cli("audit", clean).code == 1  # the cuDNN v8 default still applies


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, run_cli: Run) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    result = run_cli("audit", str(broken))
    assert result.code == 2 and result.err.count("\n") == 1 and "broken.json" in result.err
    assert run_cli("audit", str(tmp_path / "missing.json")).code == 2
    bad_db = tmp_path / "db"
    bad_db.mkdir()
    (bad_db / "X.json").write_text('{"id": "nope"}', encoding="utf-8")
    result = run_cli("audit", str(broken), "--db", str(bad_db))
    assert result.code == 2 and "not a valid advisory" in result.err


def test_local_db_directory_replaces_the_bundled_one(tmp_path: Path, run_cli: Run) -> None:
    db = tmp_path / "db"
    db.mkdir()
    source = REPO_ROOT / "src" / "envsnap" / "audit" / "db" / "ENVSNAP-2024-0001.json"
    shutil.copy(source, db / source.name)
    path = _write(tmp_path / "m.json", trigger("ENVSNAP-2024-0001"))
    result = run_cli("audit", path, "--db", str(db), "-f", "json")
    ids = [f["id"] for f in json.loads(result.out)["results"][0]["findings"]]
    assert ids == ["ENVSNAP-2024-0001"]


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_directory_streams_every_manifest_and_reports_bad_files(
    tmp_path: Path, run_cli: Run, jobs: str
) -> None:
    runs = tmp_path / "runs"
    (runs / "sub").mkdir(parents=True)
    _write(runs / "a.json", FULL)
    _write(runs / "sub" / "b.json", trigger("ENVSNAP-2024-0011"))
    (runs / "sub" / "c.json").write_text("[]", encoding="utf-8")
    result = run_cli("audit", str(runs), "-f", "json", "-j", jobs)
    assert result.code == 2 and "c.json" in result.err
    sources = {r["source"]: r for r in json.loads(result.out)["results"]}
    assert len(sources) == 3
    b = next(r for s, r in sources.items() if s.endswith("b.json"))
    assert "ENVSNAP-2024-0011" in [f["id"] for f in b["findings"]]


def test_markup_and_control_characters_are_escaped(tmp_path: Path, run_cli: Run) -> None:
    doc = trigger("ENVSNAP-2023-0007")
    doc["tokenizer"]["class_name"] = "Nllb[red]X\x1b[2J|*"
    path = _write(tmp_path / "m.json", doc)
    table = run_cli("audit", path)
    assert "\x1b" not in table.out and "Nllb[red]X" in table.out.replace("\n", "")
    markdown = run_cli("audit", path, "-f", "markdown").out
    assert "\x1b" not in markdown
    row = next(line for line in markdown.splitlines() if "| ENVSNAP-2023-0007 |" in line)
    assert "Nllb\\[red\\]X" in row and "\\|\\*" in row  # markdown punctuation escaped
    assert len(re.findall(r"(?<!\\)\|", row)) == 7  # six cells: the pipe stays inside one


def test_cluster_manifest_lists_the_ranks_a_finding_applies_to(
    tmp_path: Path, run_cli: Run
) -> None:
    from envsnap.diff.cluster.io import assemble_files

    rank0 = edited({"parallel.rank": 0})
    rank1 = edited(trigger("ENVSNAP-2024-0001"), {"parallel.rank": 1}, base=FULL)
    paths = [_write(tmp_path / f"r{i}.json", d) for i, d in enumerate((rank0, rank1))]
    cluster = assemble_files(paths)
    cpath = tmp_path / "cluster.json"
    cpath.write_text(cluster.sealed().to_json(), encoding="utf-8")
    result = run_cli("audit", str(cpath), "-f", "json")
    findings = {f["id"]: f for f in json.loads(result.out)["results"][0]["findings"]}
    assert findings["ENVSNAP-2024-0001"]["ranks"] == [1]
    assert findings["ENVSNAP-2020-0001"]["ranks"] == [0, 1]


@pytest.mark.parametrize(
    ("edits", "says"),
    [
        ({"schema_version": "9.0"}, "newer than this envsnap"),
        ({"torch": "garbage"}, "not a valid envsnap manifest: torch"),
    ],
    ids=["newer-schema", "garbage-section"],
)
def test_a_manifest_show_and_diff_refuse_is_refused(
    tmp_path: Path, run_cli: Run, edits: dict[str, Any], says: str
) -> None:
    path = _write(tmp_path / "bad.json", edited(edits))
    assert run_cli("show", path).code == 2  # the reader audit must agree with
    result = run_cli("audit", path)
    assert result.code == 2 and result.out == "", result.out
    assert result.err.count("\n") == 1 and says in result.err, result.err


def test_a_newer_schema_in_a_directory_is_an_error_line_not_a_result(
    tmp_path: Path, run_cli: Run
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs / "new.json", edited({"schema_version": "9.0"}))
    result = run_cli("audit", str(runs), "-f", "json", "-j", "1")
    assert result.code == 2 and "newer than this envsnap" in result.err
    assert json.loads(result.out)["results"][0]["findings"] == []


@pytest.mark.parametrize("columns", [80, 100])
def test_the_table_fits_the_terminal(
    tmp_path: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    path = _write(tmp_path / "m.json", trigger("ENVSNAP-2026-0001"))
    result = run_cli("audit", path)
    lines = result.out.splitlines()
    assert "ENVSNAP-2026-0001" in result.out  # ids are never broken across lines
    assert max(len(line) for line in lines) <= columns, max(lines, key=len)


def test_a_deadline_too_short_is_one_line_and_exit_2(tmp_path: Path, run_cli: Run) -> None:
    path = _write(tmp_path / "m.json", FULL)
    result = run_cli("audit", path, "--timeout", "0.000001")
    assert result.code == 2 and result.err.count("\n") == 1
    assert "did not finish within 1e-06 s" in result.err
    assert run_cli("audit", path).code == 1  # the deadline of one run does not outlive it
