"""The manifest model: canonical JSON, the digest, schema versions, reading files, atomic writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.run import build_manifest
from envsnap.errors import ManifestError
from envsnap.files.atomic import write_atomic
from envsnap.manifest.canonical import canonical_bytes, digest_of
from envsnap.manifest.model import (
    KNOWN_SCHEMA_VERSIONS,
    SCHEMA_VERSION,
    Manifest,
    load,
    manifest_from_document,
    parse_document,
    read_document,
    write_manifest,
)
from envsnap.manifest.sealed import verify_document
from tests.helpers import capture_context


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> Manifest:
    cwd = tmp_path_factory.mktemp("cwd")
    return build_manifest(
        names=["python", "system", "env"],
        context=capture_context(cwd, env={"OMP_NUM_THREADS": "4", "LANG": "C"}),
        label="unit",
        argv=["envsnap", "capture"],
    )


def test_canonical_bytes_sort_keys_keep_utf8_and_drop_whitespace() -> None:
    assert canonical_bytes({"b": [1, 2], "a": "é"}) == '{"a":"é","b":[1,2]}'.encode()
    assert canonical_bytes({"a": 1, "b": 2}) == canonical_bytes({"b": 2, "a": 1})
    with pytest.raises(ValueError):
        canonical_bytes({"x": float("nan")})


def test_digest_excludes_itself_and_detects_any_change(manifest: Manifest) -> None:
    document = manifest.to_document()
    assert document["digest"] == digest_of(document)
    assert document["digest"].startswith("sha256:")
    assert verify_document(document) == (True, document["digest"], document["digest"])
    document["run"]["label"] = "edited"
    matches, recorded, recomputed = verify_document(document)
    assert not matches and recorded != recomputed


def test_digest_counts_fields_this_version_does_not_model(manifest: Manifest) -> None:
    document = manifest.to_document()
    document["future_field"] = 1
    assert not verify_document(document)[0]


def test_top_level_fields(manifest: Manifest) -> None:
    document = manifest.to_document()
    assert document["schema_version"] == SCHEMA_VERSION
    assert {"schema_version", "tool", "created_at", "run", "collectors", "digest"} <= set(document)
    for reserved in (
        "code",
        "python",
        "packages",
        "system",
        "env",
        "gpu",
        "cuda_stack",
        "torch",
        "precision",
        "parallel",
        "data",
        "tokenizer",
        "seeds",
    ):
        assert reserved in document, reserved
    assert document["created_at"].endswith(("Z", "+00:00"))
    assert document["run"]["label"] == "unit"
    assert document["tool"]["collectors_requested"] == ["python", "system", "env"]
    assert set(document["collectors"]) == {"python", "system", "env"}
    # Sections not selected are null, and there is no record claiming they ran.
    assert document["code"] is None and "code" not in document["collectors"]


def test_pretty_text_is_the_canonical_form_reindented(manifest: Manifest) -> None:
    text = manifest.to_json()
    assert json.loads(text) == manifest.to_document()
    assert canonical_bytes(json.loads(text)) == manifest.canonical()


def test_round_trip_through_a_file(manifest: Manifest, tmp_path: Path) -> None:
    path = write_manifest(manifest, tmp_path / "sub" / "m.json")
    loaded = load(path)
    assert loaded == manifest
    assert verify_document(read_document(path))[0]


@pytest.mark.parametrize("version", ["2.0", "1.1", "10.0"])
def test_newer_schema_is_refused_naming_both_versions(manifest: Manifest, version: str) -> None:
    document = manifest.to_document()
    document["schema_version"] = version
    with pytest.raises(ManifestError) as caught:
        manifest_from_document(document, "m.json")
    message = str(caught.value)
    assert f"schema {version} is newer" in message
    assert f"({SCHEMA_VERSION})" in message


@pytest.mark.parametrize(
    ("version", "fragment"),
    [(None, "schema_version is missing"), (1.0, "must be a string"), ("v1", "unknown manifest")],
)
def test_bad_schema_versions(manifest: Manifest, version: Any, fragment: str) -> None:
    document = manifest.to_document()
    if version is None:
        del document["schema_version"]
    else:
        document["schema_version"] = version
    with pytest.raises(ManifestError, match=fragment):
        manifest_from_document(document, "m.json")


def test_known_versions_include_the_current_one() -> None:
    assert SCHEMA_VERSION in KNOWN_SCHEMA_VERSIONS


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"", "file is empty"),
        (b"  \n", "file is empty"),
        (b'{"schema_version": "1.0", "tool": {', "not valid JSON"),
        (b"hello", "not valid JSON"),
        (b"[1, 2]", "top level is not an object"),
        (b'{"a": NaN}', "NaN is not valid JSON"),
        (b'{"a": 1e999}', "out of range"),
        (b'{"a": ' + b"9" * 5000 + b"}", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON"),
        (bytes(range(256)) * 4, "not UTF-8"),
    ],
)
def test_parse_document_errors_are_one_line(data: bytes, fragment: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_document(data, "f.json")
    message = str(caught.value)
    assert fragment in message
    assert "\n" not in message and message.startswith("f.json: ")


def test_wrong_types_name_the_field(manifest: Manifest) -> None:
    document = manifest.to_document()
    document["run"]["pid"] = "not a number"
    document["collectors"]["env"]["status"] = "maybe"
    with pytest.raises(ManifestError) as caught:
        manifest_from_document(document, "m.json")
    assert "not a valid envsnap manifest" in str(caught.value)
    assert "(and 1 more problems)" in str(caught.value)


def test_oversized_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB on paper, nothing on disk
    with pytest.raises(ManifestError, match="larger than 64 MiB"):
        read_document(big)


def test_atomic_write_replaces_and_keeps_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomic(target, b"first")
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_atomic_write_failure_leaves_no_temp_file(tmp_path: Path) -> None:
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep").write_text("x")
    with pytest.raises(OSError):
        write_atomic(occupied, b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["occupied"]


_KILL_WHILE_WRITING = """
import sys
from envsnap.files.atomic import write_atomic
data = b"x" * (256 * 1024 * 1024)
print("writing", flush=True)
write_atomic(sys.argv[1], data)
print("done", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("existing", [None, b"old complete content"])
def test_kill_during_write_leaves_old_file_or_none(tmp_path: Path, existing: bytes | None) -> None:
    target = tmp_path / "out.json"
    if existing is not None:
        target.write_bytes(existing)
    child = subprocess.Popen(
        [sys.executable, "-c", _KILL_WHILE_WRITING, str(target)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "writing"
    child.kill()
    child.wait(timeout=60)
    rest = child.stdout.read()
    child.stdout.close()
    if "done" in rest:  # pragma: no cover - the write won the race; nothing to check
        pytest.skip("the 256 MiB write finished before the kill landed")
    assert [p.name for p in tmp_path.iterdir()] == ([] if existing is None else ["out.json"])
    if existing is not None:
        assert target.read_bytes() == existing
