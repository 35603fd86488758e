"""Streaming file digests with bounded memory."""

from __future__ import annotations

import hashlib
import os

CHUNK_BYTES = 1024 * 1024


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks (memory stays flat)."""
    digest = hashlib.sha256()
    with open(path, "rb", buffering=0) as handle:
        buffer = bytearray(CHUNK_BYTES)
        view = memoryview(buffer)
        while True:
            count = handle.readinto(buffer)
            if not count:
                break
            digest.update(view[:count])
    return digest.hexdigest()
