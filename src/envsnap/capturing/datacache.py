"""A persistent cache of file digests, so re-capturing unchanged data costs only stats.

An entry is keyed by (hash mode, device, inode, size, mtime_ns, ctime_ns). ctime is not
settable from user space, so `touch -d` or a copy that restores mtime cannot fake a hit.
The cache is JSON (never pickle), one file per data root under the user cache directory,
written atomically; a corrupt, unreadable or oversized cache, or anything but a regular file at
its path, is treated as empty and never fails or blocks a capture.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from envsnap.errors import EnvsnapError
from envsnap.files.atomic import write_atomic
from envsnap.files.reader import read_input

CACHE_ENV_VAR = "ENVSNAP_CACHE_DIR"
_FORMAT = 1
# An entry is about 130 bytes: 1 GiB holds some eight million files' digests.
CACHE_MAX_BYTES = 1024 * 1024 * 1024


def cache_dir(env: Mapping[str, str]) -> Path:
    """$ENVSNAP_CACHE_DIR, else $XDG_CACHE_HOME/envsnap, else ~/.cache/envsnap."""
    explicit = env.get(CACHE_ENV_VAR)
    if explicit:
        return Path(explicit)
    xdg = env.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".cache"
    return base / "envsnap"


def entry_key(mode: str, stat: os.stat_result) -> str:
    return (
        f"{mode}:{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"
    )


class DigestCache:
    """Digests by stat key. Only entries used in this run are written back, so stale ones age out."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old: dict[str, str] = self._read(path) if path else {}
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()
        self.hits = 0

    @classmethod
    def for_root(cls, root: str, env: Mapping[str, str]) -> DigestCache:
        name = hashlib.sha256(os.fsencode(root)).hexdigest()[:32]
        return cls(cache_dir(env) / f"data-{name}.json")

    @staticmethod
    def _read(path: Path) -> dict[str, str]:
        try:
            # The project's one reader: a regular file only (a named pipe would block), capped.
            raw = read_input(path, "a data digest cache", max_bytes=CACHE_MAX_BYTES)
            document = json.loads(raw)
        except (EnvsnapError, ValueError, RecursionError):
            return {}
        if not isinstance(document, dict):
            return {}
        entries = document.get("entries")
        if document.get("format") != _FORMAT or not isinstance(entries, dict):
            return {}
        # JSON object keys are always strings; values are checked when they are used.
        return entries

    def get(self, key: str) -> str | None:
        return self.get_many([key])[0]

    def get_many(self, keys: list[str]) -> list[str | None]:
        """The cached digest of each key (None: not cached), under one lock for all of them."""
        old, used = self._old, self._used
        found: list[str | None] = []
        with self._lock:
            for key in keys:
                digest = old.get(key)
                if isinstance(digest, str):
                    used[key] = digest
                    found.append(digest)
                else:
                    found.append(None)
            self.hits += sum(digest is not None for digest in found)
        return found

    def put(self, key: str, digest: str) -> None:
        with self._lock:
            self._used[key] = digest

    def save(self) -> None:
        """Write the entries used in this run; failures (read-only home...) are ignored."""
        if self.path is None or self._used == self._old:
            return
        body = json.dumps({"format": _FORMAT, "entries": self._used}, sort_keys=True)
        with contextlib.suppress(OSError):
            write_atomic(self.path, body.encode("utf-8"))
