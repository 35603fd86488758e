"""collect_env import: the fixture corpus, a round trip on this machine, malformed input, fuzzing."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envsnap.errors import ManifestError
from envsnap.interop.importers import import_record
from envsnap.interop.importers.base import Source, to_manifest
from envsnap.interop.importers.collect_env import LABELS, parse_report, read_collect_env
from envsnap.manifest.model import load
from envsnap.manifest.sealed import verify_document
from tests import helpers
from tests.helpers.importers import resolve, stated

CORPUS = helpers.FIXTURES / "collect_env"
REPORTS = sorted(CORPUS.glob("*.txt"))
ABSENT = "<absent>"


def test_corpus_is_large_and_every_report_has_expectations() -> None:
    assert len(REPORTS) >= 20
    for report in REPORTS:
        assert report.with_suffix(".expected.json").is_file(), report.name


@pytest.mark.parametrize("report", REPORTS, ids=[p.stem for p in REPORTS])
def test_corpus_fields(report: Path) -> None:
    expected = json.loads(report.with_suffix(".expected.json").read_text(encoding="utf-8"))
    imported = read_collect_env(report.read_text(encoding="utf-8"))
    view = {"sections": imported.sections, "unknown": imported.unknown, "facts": imported.facts}
    for path, want in expected["fields"].items():
        if want == ABSENT:
            with pytest.raises(KeyError):
                resolve(view, path)
        else:
            assert resolve(view, path) == want, f"{report.name}: {path}"


@pytest.mark.parametrize("report", REPORTS, ids=[p.stem for p in REPORTS])
def test_corpus_imports_as_a_valid_sealed_manifest(report: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    manifest = import_record(report, "collect-env")
    out.write_text(manifest.to_json(), encoding="utf-8")
    loaded = load(out)
    assert verify_document(json.loads(out.read_text(encoding="utf-8")))[0]
    assert loaded.imported_from is not None
    assert loaded.imported_from.format == "collect-env"
    assert loaded.imported_from.source == report.name
    assert loaded.imported_from.sha256 == hashlib.sha256(report.read_bytes()).hexdigest()
    # Sections collect_env never states are null, and say so in a way a diff can quote.
    assert loaded.code is None and loaded.seeds is None
    assert loaded.collectors["code"].status == "skipped"
    assert loaded.collectors["code"].reason == "not stated in collect_env report"


def test_could_not_collect_is_unknown_never_a_value() -> None:
    text = (CORPUS / "10_2024_torch2.4_rocm_mi250.txt").read_text(encoding="utf-8")
    imported = read_collect_env(text)
    assert imported.sections["gpu"]["driver_version"] is None
    assert imported.unknown["gpu"]["driver_version"] == "collect_env report: Could not collect"
    assert "Could not collect" not in json.dumps(imported.sections)


def test_cli_import_writes_the_manifest(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "imported.json"
    result = run_cli("import", "collect-env", str(REPORTS[6]), "-o", str(out))
    assert result.code == 0, result.err
    manifest = load(out)
    assert manifest.gpu is not None and manifest.gpu.device_count == 8
    auto = run_cli("import", "auto", str(REPORTS[6]))
    assert auto.code == 0
    assert json.loads(auto.out)["gpu"] == json.loads(out.read_text())["gpu"]


# --- round trip on this machine ------------------------------------------------------------


@pytest.mark.slow
def test_round_trip_matches_an_envsnap_capture(real_report: Path) -> None:
    import torch

    from envsnap.capturing.run import capture_process

    imported = import_record(real_report, "auto")
    captured = capture_process(only=["python", "system", "packages"])
    assert captured.python is not None and captured.system is not None
    assert captured.packages is not None
    assert stated(imported, "python", "version") == captured.python.version
    assert stated(imported, "system", "os") == captured.system.os
    assert stated(imported, "system", "kernel") == captured.system.kernel
    assert stated(imported, "system", "libc") == captured.system.libc
    cpu = captured.system.cpu
    assert stated(imported, "system", "cpu.model") == cpu.model
    assert stated(imported, "system", "cpu.logical_cores") == cpu.logical_cores
    assert stated(imported, "system", "cpu.isa_flags") == cpu.isa_flags
    assert imported.cuda_stack is not None
    assert imported.cuda_stack.torch_version == torch.__version__
    torch_pkg = stated(imported, "packages", "installed.torch.version")
    assert torch_pkg == captured.packages.installed["torch"].version
    if not torch.cuda.is_available():
        assert imported.gpu is None


# --- malformed input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"   \n\n", "file is empty"),
        (bytes(range(256)) * 4, "binary data"),
        (b"\xff\xfe\xfa not utf8 at all \xc3\x28", "not UTF-8"),
    ],
    ids=["empty", "blank", "binary", "bad-utf8"],
)
def test_malformed_files_exit_2_with_one_line(
    run_cli: Any, tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(content)
    for fmt in ("collect-env", "auto"):
        result = run_cli("import", fmt, str(path))
        assert result.code == 2
        assert result.out == ""
        assert len(result.err.strip().splitlines()) == 1
        assert message in result.err


@pytest.mark.slow
def test_garbled_report_exits_2_without_traceback(run_cli_process: Any, tmp_path: Path) -> None:
    text = (CORPUS / "07_2023_torch2.0_cpu_block_8xa100.txt").read_text(encoding="utf-8")
    # Every line garbled: letters rotated, so no label survives; a stray "OS:" does not count.
    garbled = "\n".join(
        "".join(chr((ord(c) - 97 + 7) % 26 + 97) if c.islower() else c for c in line)
        for line in text.splitlines()
    )
    garbled = f"OS: Linux\nCPU:\n{garbled}"
    path = tmp_path / "garbled.txt"
    path.write_text(garbled, encoding="utf-8")
    result = run_cli_process("import", "collect-env", str(path))
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "not a collect_env report" in result.err
    assert "Traceback" not in result.err


def test_missing_file_and_directory(run_cli: Any, tmp_path: Path) -> None:
    missing = run_cli("import", "collect-env", str(tmp_path / "nope.txt"))
    assert missing.code == 2 and "no such file" in missing.err
    directory = run_cli("import", "collect-env", str(tmp_path))
    assert directory.code == 2 and "is a directory" in directory.err


# --- fuzzing -------------------------------------------------------------------------------

_LINES = st.one_of(
    st.sampled_from([f"{label}:" for label in LABELS]).flatmap(
        lambda label: st.text(max_size=40).map(lambda value: f"{label} {value}")
    ),
    st.sampled_from(
        [
            "GPU 0: NVIDIA A100-SXM4-80GB",
            "GPU 1: ",
            "Probably one of the following:",
            "/usr/lib/libcudnn.so.8.9.2",
            "[pip3] torch==",
            "[conda] pytorch",
            "Caching allocator config: {'a': (1,",
            "Flags: avx2",
            "Core(s) per socket: x",
            "```",
            "> - ",
            "Python platform: Linux--",
            "Python version: [",
        ]
    ),
    st.text(max_size=60),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINES, max_size=30).map("\n".join))
def test_fuzz_parser_raises_only_manifest_error(text: str) -> None:
    try:
        imported = read_collect_env(text)
    except ManifestError as exc:
        assert "\n" not in str(exc)
        return
    # Whatever was read must still fit the manifest (the fitter may set sections aside).
    to_manifest(imported, Source(path=Path("fuzz.txt"), files={"fuzz.txt": text.encode()}))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_arbitrary_text(text: str) -> None:
    with contextlib.suppress(ManifestError):
        parse_report(text)
