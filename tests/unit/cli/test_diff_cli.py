"""`envsnap diff` end to end: formats, --fail-on, --ignore, bad input, A vs this environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from envsnap.manifest.model import manifest_from_document
from tests.helpers import CliResult
from tests.scenarios.cases import CASES

Run = Callable[..., CliResult]


def _write_pair(tmp_path: Path, case_id: str) -> tuple[str, str]:
    case = next(c for c in CASES if c.id == case_id)
    doc_a, doc_b = case.pair()
    paths = []
    for name, doc in (("a.json", doc_a), ("b.json", doc_b)):
        manifest = manifest_from_document(doc, name).sealed()
        (tmp_path / name).write_text(manifest.to_json(), encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths[0], paths[1]


def test_json_output_ranks_the_cause_first(tmp_path: Path, run_cli: Run) -> None:
    a, b = _write_pair(tmp_path, "loss-norm")
    result = run_cli("diff", a, b, "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["findings"][0]["rule"] == "semantics.loss-normalization"
    assert report["target"] == "close"


def test_fail_on_gates(tmp_path: Path, run_cli: Run) -> None:
    a, b = _write_pair(tmp_path, "driver-only")
    assert run_cli("diff", a, b, "--fail-on", "medium").code == 0
    assert run_cli("diff", a, b, "--fail-on", "low").code == 1
    assert run_cli("diff", a, b, "--fail-on", "medium", "--target", "bitwise").code == 1


def test_ignore_by_rule_and_by_path_glob(tmp_path: Path, run_cli: Run) -> None:
    a, b = _write_pair(tmp_path, "driver-only")
    out = json.loads(run_cli("diff", a, b, "-f", "json", "--ignore", "stack.driver").out)
    assert "stack.driver" not in {f["rule"] for f in out["findings"]}
    out = json.loads(run_cli("diff", a, b, "-f", "json", "--ignore", "gpu.*").out)
    assert not [f for f in out["findings"] if f["path"].startswith("gpu.")]
    out = json.loads(run_cli("diff", a, b, "-f", "json", "--ignore", "gpu").out)
    assert not [f for f in out["findings"] if f["path"].startswith("gpu.")]
    assert run_cli("diff", a, b, "--ignore", "gpu", "--fail-on", "low").code == 0


def test_markdown_and_output_file(tmp_path: Path, run_cli: Run) -> None:
    a, b = _write_pair(tmp_path, "seed")
    target = tmp_path / "out" / "report.md"
    assert run_cli("diff", a, b, "-f", "markdown", "-o", str(target)).code == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("**") and "| 1 | high |" in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a manifest"),
        (b'{"schema_version": "9.0"}', "newer than this envsnap"),
        (b'{"schema_version": "1.0", "tool": {}}', "not a valid envsnap manifest"),
        (b"", "empty"),
        (b"\xff\xfe\x00", "binary data"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, run_cli: Run, content: bytes, message: str
) -> None:
    good, _ = _write_pair(tmp_path, "seed")
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    result = run_cli("diff", good, str(bad))
    assert result.code == 2
    assert result.out == ""
    assert len(result.err.strip().splitlines()) == 1 and message in result.err
    assert "Traceback" not in result.err


def test_missing_file_and_bad_options(tmp_path: Path, run_cli: Run) -> None:
    good, _ = _write_pair(tmp_path, "seed")
    for args in (
        ("diff", good, str(tmp_path / "nope.json")),
        ("diff", good, str(tmp_path)),
        ("diff", good, good, "--target", "exact"),
        ("diff", good, good, "--fail-on", "severe"),
        ("diff",),
    ):
        result = run_cli(*args)
        assert result.code == 2, args
        assert len(result.err.strip().splitlines()) == 1, result.err


@pytest.mark.slow
def test_diff_against_this_environment(
    tmp_path: Path, run_cli_process: Run, clean_cwd: Path
) -> None:
    """`envsnap diff A` captures here and compares; the CLI path never imports torch."""
    a, _ = _write_pair(tmp_path, "seed")
    result = run_cli_process("diff", a, "-f", "json", cwd=clean_cwd)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["b"] == "(this environment)"
    paths = {f["path"] for f in report["findings"]}
    assert "system.hostname" in paths or "gpu" in paths


@pytest.mark.slow
def test_cli_diff_does_not_import_heavy_modules(tmp_path: Path, run_cli_process: Run) -> None:
    import subprocess
    import sys

    a, b = _write_pair(tmp_path, "seed")
    code = (
        "import sys; from envsnap.cli import main\n"
        "try:\n    main(['diff', sys.argv[1], sys.argv[2], '-o', sys.argv[3]])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'numpy', 'deepdiff') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, a, b, str(tmp_path / "r.txt")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == "[]"
