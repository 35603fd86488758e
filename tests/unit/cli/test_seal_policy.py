"""Every command reads a manifest edited after capture with a warning, or refuses it under
`envsnap --strict` / ENVSNAP_STRICT=1; `verify` alone reports the mismatch as its result."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, CliResult

WARNING = "digest does not match its content"


@pytest.fixture
def sealed(tmp_path: Path) -> Path:
    path = tmp_path / "sealed.json"
    shutil.copy(FIXTURES / "manifests" / "full.json", path)
    return path


@pytest.fixture
def edited(sealed: Path, tmp_path: Path) -> Path:
    document = json.loads(sealed.read_text(encoding="utf-8"))
    document["system"]["hostname"] = "edited-after-capture"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _commands(a: Path, b: Path) -> list[list[str]]:
    return [
        ["show", str(b)],
        ["diff", str(a), str(b)],
        ["audit", str(b)],
        ["export", "requirements", str(b)],
        ["export", "cyclonedx", str(b)],
    ]


def test_a_sealed_manifest_reads_without_a_warning(
    run_cli: Callable[..., CliResult], sealed: Path
) -> None:
    for args in _commands(sealed, sealed):
        result = run_cli(*args)
        assert WARNING not in result.err, args


def test_an_edited_manifest_is_read_with_one_warning_line(
    run_cli: Callable[..., CliResult], sealed: Path, edited: Path
) -> None:
    for args in _commands(sealed, edited):
        result = run_cli(*args)
        warnings = [line for line in result.err.splitlines() if WARNING in line]
        assert len(warnings) == 1, (args, result.err)
        assert warnings[0].startswith("envsnap: warning: ")
        assert result.code in (0, 1), (args, result.err)


def test_strict_refuses_an_edited_manifest_and_the_setting_does_not_leak(
    run_cli: Callable[..., CliResult], sealed: Path, edited: Path
) -> None:
    for args in _commands(sealed, edited):
        result = run_cli("--strict", *args)
        assert result.code == 2, (args, result.err)
        assert "refused under --strict" in result.err
        assert "Traceback" not in result.err
    # The next invocation without --strict reads it again (in-process callers run many).
    assert run_cli("show", str(edited)).code == 0


def test_the_environment_variable_refuses_too(
    run_cli: Callable[..., CliResult], edited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENVSNAP_STRICT", "1")
    assert run_cli("show", str(edited)).code == 2
    monkeypatch.setenv("ENVSNAP_STRICT", "0")
    assert run_cli("show", str(edited)).code == 0


def test_verify_reports_the_mismatch_itself(
    run_cli: Callable[..., CliResult], edited: Path
) -> None:
    result = run_cli("--strict", "verify", str(edited))
    assert result.code == 1
    assert "content was altered" in result.err
    assert WARNING not in result.err


def test_an_unsealed_import_is_not_checked(run_cli: Callable[..., CliResult]) -> None:
    report = next((FIXTURES / "collect_env").glob("*.txt"))
    result = run_cli("--strict", "diff", str(report), str(report))
    assert result.code in (0, 1), result.err
    assert WARNING not in result.err
