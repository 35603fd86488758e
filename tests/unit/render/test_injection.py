"""Values from a file never reach the output raw: every command that prints file values, in
every output format, with a payload of terminal controls, bidi overrides, rich markup,
markdown link/image/table syntax and HTML."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.manifest.canonical import pretty_text
from envsnap.manifest.model import manifest_from_document
from envsnap.render.escape import html_text, json_text, markdown_code, markdown_text, terminal_text
from tests.helpers import FIXTURES, CliResult

Run = Callable[..., CliResult]
MARK = "INJECTED"
PAYLOAD = (
    f"[bold red]{MARK}-markup[/]\x1b]52;c;ZXZpbA==\x07\x1b[31mred\x9b2J\u202eevil\u2066 "
    f"<script>alert(1)</script> ![img](http://x.example/p.png) [link](javascript:alert(1)) "
    f"a|b\n| forged | row |"
)
RAW_TERMINAL = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066")


def _sealed(document: dict[str, Any], path: Path) -> Path:
    document = manifest_from_document(document, str(path)).sealed().to_document()
    path.write_text(pretty_text(document))
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    base = json.loads((FIXTURES / "manifests" / "full.json").read_text())
    hostile = copy.deepcopy(base)
    hostile["env"]["variables"]["OMP_NUM_THREADS"] = PAYLOAD
    hostile["python"]["version"] = PAYLOAD
    hostile["run"]["label"] = PAYLOAD
    hostile["system"]["hostname"] = PAYLOAD
    a = _sealed(base, tmp_path / "a.json")
    b = _sealed(hostile, tmp_path / f"b{PAYLOAD[:30]}.json".replace("/", "_").replace("\n", "_"))
    return a, b


def _no_raw_terminal(text: str) -> None:
    for char in RAW_TERMINAL:
        assert char not in text, repr(char)


def _outside_code_spans(text: str) -> str:
    # Inside a code span (a run of backticks to the same run) HTML and links are inert text.
    return re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


def _markdown_safe(text: str) -> None:
    _no_raw_terminal(text)
    live = _outside_code_spans(text)
    assert "<script>" not in live
    assert "![img](" not in live and "[link](javascript" not in live
    assert not any(line.startswith("| forged") for line in text.splitlines())
    for line in text.splitlines():  # every table row keeps its column count
        if line.startswith("|"):
            assert len(re.findall(r"(?<!\\)\|", line)) >= 2


def _html_safe(text: str) -> None:
    _no_raw_terminal(text)
    assert "<script>alert" not in text
    assert (
        "javascript:alert" not in text
        or "href" not in text.split("javascript:alert", maxsplit=1)[0][-20:]
    )


def _json_safe(text: str) -> None:
    _no_raw_terminal(text)
    json.loads(text)


CHECKS = {"table": _no_raw_terminal, "markdown": _markdown_safe, "json": _json_safe}


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_diff_escapes_file_values(pair: tuple[Path, Path], run_cli: Run, fmt: str) -> None:
    a, b = pair
    result = run_cli("diff", str(a), str(b), "-f", fmt)
    assert result.code in (0, 1), result.err
    assert MARK in result.out  # the values did reach the output
    CHECKS[fmt](result.out)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_check_escapes_file_values(pair: tuple[Path, Path], run_cli: Run, fmt: str) -> None:
    result = run_cli("check", str(pair[1]), "-f", fmt)
    assert result.code in (0, 1), result.err
    CHECKS[fmt](result.out + result.err)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_fleet_escapes_file_values_and_markup(
    pair: tuple[Path, Path], run_cli: Run, fmt: str
) -> None:
    a, b = pair
    result = run_cli("fleet", str(a), str(b), "-f", fmt)
    assert result.code in (0, 1), result.err
    assert MARK in result.out
    CHECKS[fmt](result.out)
    if fmt == "table":
        # rich folds long cells over lines: compare without borders and whitespace.
        flat = re.sub(r"[\s│┃]", "", result.out)
        assert f"[boldred]{MARK}-markup[/]" in flat  # the markup is shown, not applied


def test_show_escapes_file_values(pair: tuple[Path, Path], run_cli: Run) -> None:
    result = run_cli("show", str(pair[1]))
    assert result.code == 0, result.err
    assert MARK in result.out
    _no_raw_terminal(result.out)


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_report_escapes_file_values(pair: tuple[Path, Path], run_cli: Run, fmt: str) -> None:
    a, b = pair
    result = run_cli("report", str(b), "--against", str(a), "-f", fmt)
    assert result.code == 0, result.err
    assert MARK in result.out
    (_html_safe if fmt == "html" else _markdown_safe)(result.out)


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_trace_diff_escapes_file_values(tmp_path: Path, run_cli: Run, fmt: str) -> None:
    session = {"kind": "session", "format": 1, "every": 1, "digests": ["params"]}

    def update(n: int, params: str) -> dict[str, Any]:
        return {"kind": "update", "update": n, "micro_steps": 1, "loss": 1.0, "params": params}

    a = tmp_path / "a.jsonl"
    b = tmp_path / "b\x1b[2J.jsonl"
    a.write_text(
        "\n".join(json.dumps(x) for x in (session, update(1, "p1"), update(2, "p2"))) + "\n"
    )
    b.write_text(
        "\n".join(json.dumps(x) for x in (session, update(1, "p1"), update(2, PAYLOAD))) + "\n"
    )
    result = run_cli("trace", "diff", str(a), str(b), "-f", fmt)
    assert result.code in (0, 1), result.err
    assert MARK in result.out
    CHECKS[fmt](result.out)


def test_file_names_in_errors_are_escaped(tmp_path: Path, run_cli: Run) -> None:
    hostile = tmp_path / "m\x1b]0;title\x07\u202e.json"
    hostile.write_text("{not json")
    for args in (
        ["diff", str(hostile), str(hostile)],
        ["show", str(hostile)],
        ["verify", str(hostile)],
    ):
        result = run_cli(*args)
        assert result.code == 2
        _no_raw_terminal(result.err)
        assert len(result.err.strip().splitlines()) == 1


def test_capture_label_and_item_errors_are_escaped(tmp_path: Path, run_cli: Run) -> None:
    out = tmp_path / "m.json"
    result = run_cli(
        "capture",
        "--only",
        "python",
        "--label",
        PAYLOAD,
        "--data",
        str(tmp_path / "x\x1b[2J"),
        "-o",
        str(out),
    )
    _no_raw_terminal(result.err)
    shown = run_cli("show", str(out))
    _no_raw_terminal(shown.out)


@pytest.mark.parametrize(
    ("escape", "check"),
    [
        (terminal_text, _no_raw_terminal),
        (markdown_text, _markdown_safe),
        (markdown_code, _markdown_safe),
        (html_text, _html_safe),
        (lambda v: json_text(json.dumps(v, ensure_ascii=False)), _json_safe),
    ],
)
def test_each_escape_function_neutralises_the_payload(
    escape: Callable[[str], str], check: Callable[[str], None]
) -> None:
    check(escape(PAYLOAD))
