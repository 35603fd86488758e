"""Detached Ed25519 signatures over manifests, for audits.

What is signed is the manifest's content digest with a domain-separation prefix. Because the
digest is the sha256 of the canonical content, a valid signature binds the signer's key to every
byte of content: editing any value breaks the digest, and editing the digest breaks the signature.

What a signature proves: the holder of the private key vouched for exactly this content. What it
does not prove: that the content is true (whoever holds the key could have edited the manifest
before signing), when it was signed, or that the key still belongs to who you think; key
distribution and revocation are the user's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.files.atomic import write_atomic
from envsnap.files.reader import parse_json, read_input

SIGNATURE_FORMAT = "envsnap-signature/1"
_DOMAIN = b"envsnap-manifest-digest-v1\n"
# A key or signature file larger than this is not one.
_MAX_SMALL_FILE = 64 * 1024


class SignatureError(EnvsnapError):
    """A key or signature file cannot be used (exit 2)."""


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SignatureError(
            "signing needs the 'cryptography' package: pip install 'envsnap-ml[sign]'"
        ) from None
    return serialization, ed25519


def _read_small(path: str | os.PathLike[str], what: str) -> bytes:
    return read_input(path, f"a {what} file", max_bytes=_MAX_SMALL_FILE, error=SignatureError)


def public_key_fingerprint(public_bytes_raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(public_bytes_raw).hexdigest()


def generate_key(private_path: str | os.PathLike[str], *, force: bool = False) -> tuple[Path, Path]:
    """Write a new Ed25519 private key (PEM, mode 0600) and its public key beside it (.pub).

    The private key file is created 0600 (never readable by others, not even briefly). An
    existing key is kept unless `force`: replacing it would orphan every signature it made.
    """
    serialization, ed25519 = _crypto()
    key = ed25519.Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    public_path = Path(f"{os.fspath(private_path)}.pub")
    if not force:
        for path in (Path(private_path), public_path):
            if path.exists() or path.is_symlink():
                raise SignatureError(f"{path}: already exists; use --force to replace the key")
    try:
        private = write_atomic(private_path, private_pem, mode=0o600, exclusive=not force)
    except FileExistsError:
        raise SignatureError(
            f"{private_path}: already exists; use --force to replace the key"
        ) from None
    except OSError as exc:
        raise SignatureError(f"{private_path}: cannot write: {exc.strerror or exc}") from None
    public = write_atomic(public_path, public_pem)
    return private, public


def _load_private(path: str | os.PathLike[str]) -> Any:
    serialization, ed25519 = _crypto()
    data = _read_small(path, "private key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{path}: not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key")
    return key


def _load_public(path: str | os.PathLike[str]) -> Any:
    serialization, ed25519 = _crypto()
    data = _read_small(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise SignatureError(
            f"{path}: not a PEM public key (give the .pub file written by `envsnap keygen`)"
        ) from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SignatureError(f"{path}: not an Ed25519 public key")
    return key


def _raw_public(key: Any) -> bytes:
    serialization, _ = _crypto()
    raw: bytes = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def sign_digest(digest: str, private_key_path: str | os.PathLike[str]) -> dict[str, str]:
    """A detached signature document for a manifest whose content digest is `digest`."""
    key = _load_private(private_key_path)
    signature = key.sign(_DOMAIN + digest.encode("ascii"))
    return {
        "format": SIGNATURE_FORMAT,
        "algorithm": "ed25519",
        "digest": digest,
        "public_key": public_key_fingerprint(_raw_public(key.public_key())),
        "signature": base64.b64encode(signature).decode("ascii"),
    }


def write_signature(document: dict[str, str], path: str | os.PathLike[str]) -> Path:
    text = json.dumps(document, sort_keys=True, indent=2) + "\n"
    return write_atomic(path, text.encode("utf-8"))


def read_signature(path: str | os.PathLike[str]) -> dict[str, str]:
    data = _read_small(path, "signature")
    document = parse_json(data, os.fspath(path), "a signature file", error=SignatureError)
    fields = ("format", "algorithm", "digest", "public_key", "signature")
    if not isinstance(document, dict) or any(
        not isinstance(document.get(field), str) for field in fields
    ):
        raise SignatureError(f"{path}: corrupt signature file (missing fields)")
    if document["format"] != SIGNATURE_FORMAT or document["algorithm"] != "ed25519":
        raise SignatureError(f"{path}: unsupported signature format {document['format']!r}")
    return {field: document[field] for field in fields}


def verify_signature(
    signature: dict[str, str], content_digest: str, public_key_path: str | os.PathLike[str]
) -> str | None:
    """Check a signature against the manifest's recomputed digest.

    Returns None when valid, or a one-line reason when the content or signature was altered.
    Raises `SignatureError` when the key is not the one the signature names (wrong key).
    """
    from cryptography.exceptions import InvalidSignature

    key = _load_public(public_key_path)
    fingerprint = public_key_fingerprint(_raw_public(key))
    if fingerprint != signature["public_key"]:
        raise SignatureError(
            f"{public_key_path}: wrong key: the signature was made by {signature['public_key']}, "
            f"this key is {fingerprint}"
        )
    try:
        raw = base64.b64decode(signature["signature"], validate=True)
    except ValueError:
        raise SignatureError("corrupt signature file (signature is not base64)") from None
    if signature["digest"] != content_digest:
        return (
            f"the manifest changed after signing (signed {signature['digest']}, "
            f"content {content_digest})"
        )
    try:
        key.verify(raw, _DOMAIN + content_digest.encode("ascii"))
    except InvalidSignature:
        return "the signature does not match (signature file altered or forged)"
    return None
