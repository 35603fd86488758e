"""`envsnap check` on the command line: formats, --target, --fail-on exit codes, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import CliResult

Run = Callable[..., CliResult]


@pytest.fixture
def manifest(run_cli_process: Run, clean_cwd: Path) -> Path:
    """A real capture, in a fresh process, of a directory with no lock file and no repository."""
    path = clean_cwd / "m.json"
    result = run_cli_process(
        "capture", "-o", str(path), "--only", "python,packages,env,seeds", cwd=clean_cwd
    )
    assert result.code == 0, result.err
    return path


@pytest.mark.slow
def test_json_report_of_a_file(run_cli: Run, manifest: Path) -> None:
    result = run_cli("check", str(manifest), "--format", "json", "--target", "bitwise")
    assert result.code == 0
    report = json.loads(result.out)
    assert report["kind"] == "check" and report["target"] == "bitwise"
    assert report["a"] == str(manifest)
    rules = {finding["rule"] for finding in report["findings"]}
    assert "check.no-lock-file" in rules
    assert "check.no-seed" in rules  # a CLI capture declares no seed
    missing = {f["path"] for f in report["findings"] if f["rule"] == "check.section-missing"}
    assert "collectors.code" in missing  # not requested with --only: reported at info


@pytest.mark.slow
def test_fail_on_sets_the_exit_code(run_cli: Run, manifest: Path) -> None:
    # The worst finding is high (no seed declared, nothing observed: torch was never imported).
    assert run_cli("check", str(manifest), "--fail-on", "high").code == 1
    assert run_cli("check", str(manifest), "--fail-on", "critical").code == 0


@pytest.mark.slow
def test_markdown_and_table_formats(run_cli: Run, manifest: Path) -> None:
    markdown = run_cli("check", str(manifest), "-f", "markdown")
    assert markdown.code == 0 and "| check.no-lock-file |" in markdown.out.replace("`", "")
    table = run_cli("check", str(manifest))
    assert table.code == 0 and "no lock file found" in table.out


@pytest.mark.slow
def test_output_file_is_written(run_cli: Run, manifest: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert run_cli("check", str(manifest), "-f", "json", "-o", str(out)).code == 0
    assert json.loads(out.read_text(encoding="utf-8"))["kind"] == "check"


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("{not json", "not valid JSON"), ("[]", "not a manifest")],
)
def test_bad_input_is_one_line_and_exit_2(
    run_cli: Run, tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = run_cli("check", str(path))
    assert result.code == 2
    assert result.err.count("\n") == 1 and message in result.err
    assert "Traceback" not in result.err


@pytest.mark.slow
def test_unknown_target_is_a_usage_error(run_cli: Run, manifest: Path) -> None:
    result = run_cli("check", str(manifest), "--target", "exact")
    assert result.code == 2 and "exact" in result.err


@pytest.mark.slow
def test_this_environment_says_seeds_are_unknown(run_cli_process: Run, clean_cwd: Path) -> None:
    result = run_cli_process("check", "-f", "json", cwd=clean_cwd)
    assert result.code == 0
    report = json.loads(result.out)
    assert report["a"] == "(this environment)"
    seeds = [f for f in report["findings"] if f["rule"] == "check.no-seed"]
    assert [f["severity"] for f in seeds] == ["info"]


@pytest.mark.slow
def test_check_never_imports_torch(manifest: Path) -> None:
    code = (
        "import sys\n"
        "from envsnap.cli import main\n"
        "try:\n"
        f"    main(['check', {str(manifest)!r}, '-f', 'json', '-o', {str(manifest) + '.out'!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('torch', 'numpy', 'deepdiff') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
