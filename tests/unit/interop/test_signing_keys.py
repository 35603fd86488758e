"""Signing hardening: keys private from their first byte, no silent key replacement, and
duplicate JSON keys refused before anything is verified."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from envsnap.files import atomic
from tests.helpers import FIXTURES

MANIFEST = FIXTURES / "manifests" / "full.json"


def test_private_key_is_0600_from_its_first_byte(tmp_path: Path, monkeypatch, run_cli) -> None:  # type: ignore[no-untyped-def]
    modes: list[int] = []
    real = atomic._write_all

    def spy(fd: int, data: bytes) -> None:
        modes.append(os.fstat(fd).st_mode & 0o777)
        real(fd, data)

    monkeypatch.setattr(atomic, "_write_all", spy)
    old = os.umask(0)  # the widest umask: the mode must not come from it
    try:
        assert run_cli("keygen", str(tmp_path / "k")).code == 0
    finally:
        os.umask(old)
    assert modes[0] == 0o600  # the private key, while its bytes are being written
    assert (tmp_path / "k").stat().st_mode & 0o777 == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_keygen_keeps_an_existing_key_unless_forced(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    key = tmp_path / "k"
    assert run_cli("keygen", str(key)).code == 0
    before = key.read_bytes()
    result = run_cli("keygen", str(key))
    assert result.code == 2
    assert "already exists" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert key.read_bytes() == before
    assert run_cli("keygen", str(key), "--force").code == 0
    assert key.read_bytes() != before
    assert key.stat().st_mode & 0o777 == 0o600


def test_keygen_refuses_when_only_the_public_key_exists(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "k.pub").write_text("someone else's key\n")
    result = run_cli("keygen", str(tmp_path / "k"))
    assert result.code == 2
    assert (tmp_path / "k.pub").read_text() == "someone else's key\n"


def _signed(tmp_path: Path, run_cli) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "run.json"
    shutil.copy(MANIFEST, manifest)
    key = tmp_path / "k"
    assert run_cli("keygen", str(key)).code == 0
    assert run_cli("sign", str(manifest), "--key", str(key)).code == 0
    return manifest, key


def test_signature_with_duplicate_keys_is_refused(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    manifest, key = _signed(tmp_path, run_cli)
    sig = Path(f"{manifest}.sig")
    text = sig.read_text().replace('"algorithm"', '"algorithm": "none",\n  "algorithm"', 1)
    sig.write_text(text)
    result = run_cli("verify", str(manifest), "--key", f"{key}.pub")
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1


@pytest.mark.parametrize("where", ["top", "nested"])
def test_manifest_with_duplicate_keys_is_refused_before_verification(
    tmp_path: Path, run_cli, where: str
) -> None:  # type: ignore[no-untyped-def]
    manifest, key = _signed(tmp_path, run_cli)
    text = manifest.read_text()
    document = json.loads(text)
    if where == "top":
        # A second `run` that a first-value reader would see instead of the signed one.
        forged = text.replace(
            '"run": {', '"run": {"argv": [], "cwd": null, "pid": 1},\n  "run": {', 1
        )
    else:
        version = document["python"]["version"]
        forged = text.replace(
            f'"version": "{version}"', f'"version": "0.0", "version": "{version}"', 1
        )
    assert forged != text
    manifest.write_text(forged)
    result = run_cli("verify", str(manifest), "--key", f"{key}.pub")
    assert result.code == 2
    assert "duplicate" in result.err
    assert len(result.err.strip().splitlines()) == 1
