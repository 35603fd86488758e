"""`envsnap capture` with --data, --data-mode, --tokenizer, --template, --set and --strict."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ONLY = "--only=data,templates,tokenizer,parallel"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVSNAP_CACHE_DIR", str(tmp_path / "cache"))


def test_flags_fill_the_sections(run_cli: Callable[..., Any], clean_cwd: Path) -> None:
    (clean_cwd / "data").mkdir()
    (clean_cwd / "data" / "x.txt").write_text("x\n")
    (clean_cwd / "chat.jinja").write_text("{{ m }}")
    result = run_cli(
        "capture",
        ONLY,
        "--data",
        "data",
        "--data-mode",
        "stat",
        "--template",
        "chat.jinja",
        "--set",
        "parallel.micro_batch=4",
        "--set",
        "parallel.grad_accum=8",
        "--set",
        "parallel.dp_size=2",
        "-o",
        "m.json",
        cwd=clean_cwd,
    )
    assert result.code == 0, result.err
    manifest = json.loads((clean_cwd / "m.json").read_text())
    assert manifest["data"]["items"]["data"]["mode"] == "stat"
    assert manifest["data"]["items"]["data"]["file_count"] == 1
    assert manifest["templates"]["templates"]["chat.jinja"]["bytes"] == 7
    assert manifest["parallel"]["global_batch"] == 64
    assert manifest["collectors"]["tokenizer"]["status"] == "skipped"


def test_config_file_needs_no_flags_and_set_overrides_it(
    run_cli: Callable[..., Any], clean_cwd: Path
) -> None:
    (clean_cwd / "envsnap.toml").write_text(
        '[data]\npaths = ["d.bin"]\n[parallel]\nmicro_batch_size = 2\ngrad_accum_steps = 4\n'
    )
    (clean_cwd / "d.bin").write_bytes(b"\0" * 10)
    result = run_cli("capture", ONLY, "--set", "parallel.grad_accum=1", cwd=clean_cwd)
    assert result.code == 0, result.err
    manifest = json.loads(result.out)
    assert manifest["data"]["items"]["d.bin"]["total_bytes"] == 10
    assert manifest["parallel"]["grad_accum_steps"] == 1


def test_bad_items_warn_and_strict_fails(run_cli: Callable[..., Any], clean_cwd: Path) -> None:
    os.mkdir(clean_cwd / "tok")
    args = ("capture", ONLY, "--data", "missing", "--tokenizer", "tok")
    relaxed = run_cli(*args, cwd=clean_cwd)
    assert relaxed.code == 0
    assert "data[missing]: no such file or directory" in relaxed.err
    assert "tokenizer: no tokenizer files" in relaxed.err
    strict = run_cli(*args, "--strict", cwd=clean_cwd)
    assert strict.code == 1


@pytest.mark.parametrize(
    "args",
    [
        ("--set", "parallel.grad_acum=8"),
        ("--set", "nonsense"),
        ("--data-mode", "fast"),
    ],
)
def test_invalid_declarations_are_one_line_exit_2(
    run_cli: Callable[..., Any], clean_cwd: Path, args: tuple[str, ...]
) -> None:
    result = run_cli("capture", ONLY, *args, cwd=clean_cwd)
    assert result.code == 2
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
