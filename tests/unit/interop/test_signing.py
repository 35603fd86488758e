"""Detached signatures: sign, verify, and every way a signature check must fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURES

MANIFEST = FIXTURES / "manifests" / "full.json"


@pytest.fixture
def signed(tmp_path: Path, run_cli) -> tuple[Path, Path, Path]:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "run.json"
    shutil.copy(MANIFEST, manifest)
    key = tmp_path / "keys" / "auditor"
    assert run_cli("keygen", str(key)).code == 0
    result = run_cli("sign", str(manifest), "--key", str(key))
    assert result.code == 0, result.err
    return manifest, key, Path(f"{key}.pub")


def test_keygen_writes_a_private_key_only_its_owner_can_read(signed) -> None:  # type: ignore[no-untyped-def]
    _manifest, key, public = signed
    assert key.stat().st_mode & 0o777 == 0o600
    assert b"PRIVATE KEY" in key.read_bytes()
    assert b"PUBLIC KEY" in public.read_bytes()


def test_valid_signature_verifies(signed, run_cli) -> None:  # type: ignore[no-untyped-def]
    manifest, _key, public = signed
    result = run_cli("verify", str(manifest), "--key", str(public))
    assert result.code == 0, result.err
    assert "signature" in result.out.lower()


def test_edited_manifest_with_recomputed_digest_fails_the_signature(signed, run_cli) -> None:  # type: ignore[no-untyped-def]
    """An editor who also fixes the digest still cannot forge the signature."""
    from envsnap.manifest.canonical import digest_of, pretty_text

    manifest, _key, public = signed
    document = json.loads(manifest.read_text())
    document["run"]["label"] = "edited after signing"
    document["digest"] = digest_of(document)
    manifest.write_text(pretty_text(document))
    assert run_cli("verify", str(manifest)).code == 0  # the digest alone is consistent again
    result = run_cli("verify", str(manifest), "--key", str(public))
    assert result.code == 1
    assert "changed after signing" in result.err


def test_tampered_signature_bytes_fail(signed, run_cli) -> None:  # type: ignore[no-untyped-def]
    manifest, _key, public = signed
    signature_path = Path(f"{manifest}.sig")
    signature = json.loads(signature_path.read_text())
    raw = bytearray(__import__("base64").b64decode(signature["signature"]))
    raw[0] ^= 0xFF
    signature["signature"] = __import__("base64").b64encode(bytes(raw)).decode()
    signature_path.write_text(json.dumps(signature))
    result = run_cli("verify", str(manifest), "--key", str(public))
    assert result.code == 1
    assert "does not match" in result.err


@pytest.mark.parametrize(
    "problem", ["wrong-key", "not-a-key", "corrupt-signature", "missing-manifest"]
)
def test_bad_inputs_exit_2_with_one_line(signed, run_cli, tmp_path: Path, problem: str) -> None:  # type: ignore[no-untyped-def]
    manifest, _key, public = signed
    args = [str(manifest), "--key", str(public)]
    if problem == "wrong-key":
        other = tmp_path / "other"
        run_cli("keygen", str(other))
        args = [str(manifest), "--key", f"{other}.pub"]
    elif problem == "not-a-key":
        junk = tmp_path / "junk.pem"
        junk.write_text("not a key\n")
        args = [str(manifest), "--key", str(junk)]
    elif problem == "corrupt-signature":
        Path(f"{manifest}.sig").write_bytes(b"\x00\x01garbage")
    else:
        args = [str(tmp_path / "absent.json"), "--key", str(public)]
    result = run_cli("verify", *args)
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err


def test_refuses_to_sign_an_altered_manifest(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "run.json"
    document = json.loads(MANIFEST.read_text())
    document["run"]["label"] = "edited"
    manifest.write_text(json.dumps(document))
    run_cli("keygen", str(tmp_path / "k"))
    result = run_cli("sign", str(manifest), "--key", str(tmp_path / "k"))
    assert result.code == 1
    assert not Path(f"{manifest}.sig").exists()


def test_signature_without_key_is_a_usage_error(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "m.json"
    shutil.copy(FIXTURES / "manifests" / "full.json", manifest)
    (tmp_path / "m.sig").write_text("garbage")
    result = run_cli("verify", str(manifest), "--signature", str(tmp_path / "m.sig"))
    assert result.code == 2
    assert "--key" in result.err
