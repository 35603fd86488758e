"""Bad input to `show` and `verify`: exit 2 and exactly one line on stderr, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.run import build_manifest
from envsnap.manifest.model import Manifest
from tests.helpers import CliResult, capture_context

RunCli = Callable[..., CliResult]


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> Manifest:
    cwd = tmp_path_factory.mktemp("cwd")
    return build_manifest(
        names=["python", "env"],
        context=capture_context(cwd, env={"OMP_NUM_THREADS": "8"}),
        argv=["envsnap", "capture"],
    )


def _bad_inputs(tmp_path: Path, manifest: Manifest) -> dict[str, tuple[Path, str]]:
    """name -> (path, a fragment the one-line message must contain)."""
    document = manifest.to_document()
    text = manifest.to_json()
    cases: dict[str, tuple[bytes | None, str]] = {
        "empty": (b"", "file is empty"),
        "truncated": (text[: len(text) // 2].encode(), "not valid JSON"),
        "not_json": (b"schema_version: 1.0\n", "not valid JSON"),
        "json_array": (b"[1, 2, 3]", "not an envsnap manifest"),
        "other_json_object": (b'{"name": "package.json", "version": "1.0.0"}', "missing"),
        "wrong_types": (
            json.dumps({**document, "tool": "envsnap", "collectors": []}).encode(),
            "not a valid envsnap manifest: tool",
        ),
        "newer_schema": (
            json.dumps({**document, "schema_version": "2.0"}).encode(),
            "schema 2.0 is newer than this envsnap",
        ),
        "binary": (bytes(range(256)) * 64, "not UTF-8"),
        "nan": (text.replace('"pid": ', '"pid": NaN, "x": ', 1).encode(), "NaN"),
    }
    out: dict[str, tuple[Path, str]] = {}
    for name, (data, fragment) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data or b"")
        out[name] = (path, fragment)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    out["100MB"] = (huge, "larger than 64 MiB")
    directory = tmp_path / "a_directory"
    directory.mkdir()
    out["directory"] = (directory, "is a directory")
    out["missing"] = (tmp_path / "missing.json", "no such file")
    return out


CASES = [
    "empty",
    "truncated",
    "not_json",
    "json_array",
    "other_json_object",
    "wrong_types",
    "newer_schema",
    "binary",
    "nan",
    "100MB",
    "directory",
    "missing",
]


def _assert_one_line_error(result: CliResult, fragment: str) -> None:
    assert result.code == 2, result
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("envsnap: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.err and result.out == ""


@pytest.mark.parametrize("command", ["show", "verify"])
@pytest.mark.parametrize("case", CASES)
def test_bad_input_gives_exit_2_and_one_line(
    run_cli: RunCli, tmp_path: Path, manifest: Manifest, command: str, case: str
) -> None:
    path, fragment = _bad_inputs(tmp_path, manifest)[case]
    _assert_one_line_error(run_cli(command, str(path)), fragment)


def test_newer_schema_message_names_both_versions(
    run_cli: RunCli, tmp_path: Path, manifest: Manifest
) -> None:
    path, _ = _bad_inputs(tmp_path, manifest)["newer_schema"]
    line = run_cli("verify", str(path)).err
    assert "2.0" in line and "(1.0)" in line


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def test_verify_exit_codes(run_cli: RunCli, tmp_path: Path, manifest: Manifest) -> None:
    good = _write(tmp_path / "good.json", manifest.to_document())
    ok = run_cli("verify", str(good))
    assert ok.code == 0 and ok.out.startswith("OK: ") and manifest.digest in ok.out

    edited = manifest.to_document()
    edited["env"]["variables"]["OMP_NUM_THREADS"] = "16"
    altered = run_cli("verify", str(_write(tmp_path / "altered.json", edited)))
    assert altered.code == 1
    assert "content was altered" in altered.err and len(altered.err.splitlines()) == 1

    unsealed = manifest.to_document()
    unsealed["digest"] = None
    missing = run_cli("verify", str(_write(tmp_path / "unsealed.json", unsealed)))
    assert missing.code == 1 and "no digest recorded" in missing.err


def test_reformatting_does_not_count_as_altering(
    run_cli: RunCli, tmp_path: Path, manifest: Manifest
) -> None:
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(manifest.to_document(), separators=(",", ":")))
    assert run_cli("verify", str(compact)).code == 0


def test_show_prints_a_summary(run_cli: RunCli, tmp_path: Path, manifest: Manifest) -> None:
    path = _write(tmp_path / "good.json", manifest.to_document())
    result = run_cli("show", str(path))
    assert result.code == 0 and result.err == ""
    assert "OMP_NUM_THREADS=8" in result.out
    assert manifest.digest is not None and manifest.digest in result.out


def test_show_prints_hostile_text_literally(
    run_cli: RunCli, tmp_path: Path, manifest: Manifest
) -> None:
    """Values are data: rich markup is not interpreted and terminal escapes are not sent."""
    from envsnap.manifest.canonical import digest_of

    document = manifest.to_document()
    document["env"]["variables"] = {"TORCH_X": "[/bold] [red]x\x1b[2J"}
    document["run"]["label"] = "[link=file:///etc]label"
    document["digest"] = digest_of(document)
    result = run_cli("show", str(_write(tmp_path / "hostile.json", document)))
    assert result.code == 0, result.err
    assert "[/bold] [red]x\\x1b[2J" in result.out
    assert "[link=file:///etc]label" in result.out
    assert "\x1b" not in result.out


def test_usage_errors_are_one_line(run_cli: RunCli) -> None:
    for args in (["show"], ["nope"], ["capture", "--no-such-flag"], ["capture", "--only", "x"]):
        result = run_cli(*args)
        assert result.code == 2, args
        assert len(result.err.splitlines()) == 1, result.err
        assert result.err.startswith("envsnap: error: ")


def test_capture_output_into_a_missing_place_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_cli("capture", "--only", "python", "-o", str(blocker / "m.json"))
    assert result.code == 2
    assert len(result.err.splitlines()) == 1 and "Not a directory" in result.err


def test_bare_command_and_version(run_cli: RunCli) -> None:
    bare = run_cli()
    assert bare.code == 0 and "Usage: envsnap" in bare.out
    version = run_cli("--version")
    from envsnap import __version__

    assert version.code == 0 and version.out.strip() == f"envsnap {__version__}"


@pytest.mark.parametrize("argv", [["capture", "--only", "python"], ["diff", "missing.json"]])
def test_main_leaves_the_cycle_collector_as_it_found_it(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """capture and diff pause Python's cycle collector while they run; a process that calls
    main() (a test, a tool) must get it back running, whether the command worked or failed."""
    import gc

    from envsnap.cli import main

    monkeypatch.chdir(tmp_path)
    seen: list[bool] = []
    monkeypatch.setattr("envsnap.cli.cli.main", lambda **_: seen.append(gc.isenabled()) or 0)
    with pytest.raises(SystemExit):
        main(argv)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(SystemExit):
            main(argv)
        assert not gc.isenabled()  # a caller that had paused it keeps it paused
    finally:
        gc.enable()
