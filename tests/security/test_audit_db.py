"""Attacks on `envsnap audit --db DIR`, each run against the real CLI in a subprocess.

A database directory may come from anywhere. Whatever it holds, audit must end quickly with one
line on stderr and exit 2: never hang on a pipe, never read a device, never grow its memory
with the input, never run a pattern that backtracks.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT
from tests.helpers.paths import FIXTURES

MANIFEST = str(FIXTURES / "manifests" / "full.json")
ADVISORY = REPO_ROOT / "src" / "envsnap" / "audit" / "db" / "ENVSNAP-2023-0007.json"
TIMEOUT_S = 30  # far above what a refusal takes; a hang shows as TimeoutExpired
QUICK_S = 10.0

# Runs the CLI and reports, on its last line, the peak RSS of that one child: measured from a
# process of its own, so other tests' children do not count.
_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(json.dumps(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(done.returncode)
"""


@dataclass
class Outcome:
    code: int
    err: str
    seconds: float
    peak_rss_mib: float


def audit(*args: str) -> Outcome:
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "envsnap", "audit", *args]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    seconds = time.monotonic() - start
    peak_kib = json.loads(done.stdout.splitlines()[-1])  # ru_maxrss is in KiB on Linux
    return Outcome(done.returncode, done.stderr, seconds, peak_kib / 1024)


def refused(outcome: Outcome, *words: str) -> None:
    """Exit 2, one line on stderr that says why, no traceback, quickly."""
    assert outcome.code == 2, outcome.err
    assert outcome.err.count("\n") == 1 and "Traceback" not in outcome.err, outcome.err
    assert outcome.err.startswith("envsnap: error: ")
    for word in words:
        assert word in outcome.err
    assert outcome.seconds < QUICK_S


def advisory(**when: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(ADVISORY.read_text("utf-8"))
    document["database_specific"]["envsnap"]["when"] = when
    return document


def database(tmp_path: Path, *documents: dict[str, Any]) -> Path:
    db = tmp_path / "db"
    db.mkdir()
    for index, document in enumerate(documents):
        (db / f"ENVSNAP-2023-{index + 1:04d}.json").write_text(json.dumps(document), "utf-8")
    return db


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_in_the_database_is_refused_without_blocking(tmp_path: Path) -> None:
    db = database(tmp_path, advisory(fact="tokenizer.class_name", matches="^Nllb"))
    os.mkfifo(db / "pipe.json")  # no writer: opening it for reading would block for ever
    refused(audit(MANIFEST, "--db", str(db)), "pipe.json", "pipe, socket or device")


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets are POSIX")
def test_a_socket_in_the_database_is_refused(tmp_path: Path) -> None:
    db = database(tmp_path)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(db / "s.json"))
        refused(audit(MANIFEST, "--db", str(db)), "s.json")
    finally:
        server.close()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    db = database(tmp_path)
    (db / "zero.json").symlink_to("/dev/zero")
    outcome = audit(MANIFEST, "--db", str(db))
    refused(outcome, "zero.json", "link out of the advisory directory")
    assert outcome.peak_rss_mib < 200, outcome.peak_rss_mib


def test_a_link_out_of_the_directory_is_refused_even_to_a_valid_advisory(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(ADVISORY.read_text("utf-8"), "utf-8")
    db = database(tmp_path)
    (db / "ENVSNAP-2023-0007.json").symlink_to(outside)
    refused(audit(MANIFEST, "--db", str(db)), "link out of the advisory directory")


def test_a_link_inside_the_directory_is_read(tmp_path: Path) -> None:
    db = database(tmp_path, advisory(fact="tokenizer.class_name", matches="^Nllb"))
    (db / "alias.json").symlink_to(db / "ENVSNAP-2023-0001.json")
    outcome = audit(MANIFEST, "--db", str(db))
    assert outcome.code == 0, outcome.err


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    db = database(tmp_path)
    with (db / "huge.json").open("wb") as handle:
        handle.truncate(8 * 1024**3)  # sparse: 8 GiB to read, nothing on disk
    outcome = audit(MANIFEST, "--db", str(db))
    refused(outcome, "huge.json", "larger than")
    assert outcome.peak_rss_mib < 200, outcome.peak_rss_mib


def test_many_files_are_refused_past_the_cap(tmp_path: Path) -> None:
    from envsnap.audit.database import MAX_ADVISORY_FILES

    db = database(tmp_path)
    for index in range(MAX_ADVISORY_FILES + 1):
        (db / f"{index}.json").write_bytes(b"{}")
    refused(audit(MANIFEST, "--db", str(db)), f"more than {MAX_ADVISORY_FILES} advisory files")


def test_files_under_the_cap_each_are_refused_past_the_total(tmp_path: Path) -> None:
    from envsnap.audit.database import MAX_ADVISORY_BYTES, MAX_DATABASE_BYTES

    db = database(tmp_path)
    valid = ADVISORY.read_bytes()
    padded = valid + b" " * (MAX_ADVISORY_BYTES - len(valid))  # each one just under its cap
    for index in range(MAX_DATABASE_BYTES // MAX_ADVISORY_BYTES + 1):
        (db / f"{index:03d}.json").write_bytes(padded)
    refused(audit(MANIFEST, "--db", str(db)), "in all")


@pytest.mark.parametrize("depth", [100, 200_000])
def test_deeply_nested_json_is_refused(tmp_path: Path, depth: int) -> None:
    db = database(tmp_path)
    (db / "deep.json").write_text("[" * depth + "]" * depth, "utf-8")
    refused(audit(MANIFEST, "--db", str(db)), "deep.json", "nested")


def test_a_deeply_nested_condition_is_refused(tmp_path: Path) -> None:
    condition: dict[str, Any] = {"fact": "tokenizer.class_name", "set": True}
    for _ in range(100):
        condition = {"not": condition}
    db = database(tmp_path, advisory(**condition))
    refused(audit(MANIFEST, "--db", str(db)), "nested deeper than")


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|a)*$", "(.*)*x", "(a)\\1", "(?=a)a", "(?<!a)b"])
def test_a_catastrophic_pattern_is_refused_at_load(tmp_path: Path, pattern: str) -> None:
    # A value that makes Python's re backtrack for hours on the first three patterns.
    manifest = json.loads(Path(MANIFEST).read_text("utf-8"))
    manifest["tokenizer"]["class_name"] = "a" * 50_000 + "!"
    target = tmp_path / "m.json"
    target.write_text(json.dumps(manifest), "utf-8")
    db = database(tmp_path, advisory(fact="tokenizer.class_name", matches=pattern))
    refused(
        audit(str(target), "--db", str(db)), "ENVSNAP-2023-0001.json", json.dumps(pattern)[1:-1]
    )


def test_an_accepted_pattern_on_a_long_value_stays_fast(tmp_path: Path) -> None:
    # `\\s*\\s*x` is in the grammar; Python's re needs about 9 s for it on 2,000 spaces.
    manifest = json.loads(Path(MANIFEST).read_text("utf-8"))
    manifest["tokenizer"]["class_name"] = " " * 100_000
    target = tmp_path / "m.json"
    target.write_text(json.dumps(manifest), "utf-8")
    db = database(tmp_path, advisory(fact="tokenizer.class_name", matches="\\s*\\s*x"))
    outcome = audit(str(target), "--db", str(db))
    assert outcome.code == 0 and outcome.seconds < QUICK_S, outcome.err


def test_the_whole_audit_has_a_deadline() -> None:
    refused(audit(MANIFEST, "--timeout", "0.000001"), "did not finish within")
