"""Keep a checkpoint audit inside the checkpoint: its own regular files, bounded reads.

A checkpoint's metadata is written by whoever made the checkpoint. It may name a shard
`../../etc/shadow`, `/dev/zero` or a named pipe, with a negative length, and a zip member may
claim to inflate to terabytes. Every path it names goes through `member`, every byte range
through `byte_range`, and every zip archive through `check_zip`, before anything is read.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path
from typing import BinaryIO

from envsnap.errors import EnvsnapError

# A record that inflates beyond this (or by more than this ratio) is refused as a zip bomb.
# torch.save stores records uncompressed, so a compressed record is unusual to begin with.
MAX_INFLATED_BYTES = 256 * 1024 * 1024
MAX_INFLATE_RATIO = 100
# The pickle of a checkpoint holds structure, not tensor bytes: it is small.
MAX_PICKLE_BYTES = 256 * 1024 * 1024


def member(directory: Path, name: object) -> Path | None:
    """`directory / name` when `name` is a relative path that stays inside `directory` and is
    a regular file there (or nothing at all); None when it points anywhere else."""
    if not isinstance(name, str) or not name or "\0" in name or os.path.isabs(name):
        return None
    if any(part == ".." for part in Path(name).parts):
        return None
    path = directory / name
    root = directory.resolve()
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return None
    if resolved != root and root not in resolved.parents:
        return None
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path  # missing: reported as missing, not as outside
    except OSError:
        return None
    return path if stat.S_ISREG(mode) else None


def byte_range(offset: object, length: object) -> tuple[int, int] | None:
    """(offset, length) when both are non-negative integers, else None."""
    if isinstance(offset, bool) or isinstance(length, bool):
        return None
    if not isinstance(offset, int) or not isinstance(length, int) or offset < 0 or length < 0:
        return None
    return offset, length


def check_zip(handle: BinaryIO, label: str) -> None:
    """Refuse a zip archive whose records would inflate without bound (a zip bomb), or whose
    declared sizes do not fit in the file. Not a zip: nothing to check."""
    start = handle.tell()
    try:
        if not zipfile.is_zipfile(handle):
            return
        handle.seek(start)
        size = handle.seek(0, os.SEEK_END)
        handle.seek(start)
        with zipfile.ZipFile(handle) as archive:
            for info in archive.infolist():
                stored = info.compress_type == zipfile.ZIP_STORED
                limit = MAX_PICKLE_BYTES if info.filename.endswith(".pkl") else size
                if stored and info.file_size <= min(limit, size):
                    continue
                ratio = info.file_size / max(1, info.compress_size)
                if (
                    stored
                    or info.file_size > min(limit, MAX_INFLATED_BYTES)
                    or ratio > MAX_INFLATE_RATIO
                ):
                    raise EnvsnapError(
                        f"{label}: refused: record {info.filename[:80]!r} claims "
                        f"{info.file_size} bytes from {info.compress_size} (a zip bomb or a "
                        "corrupt archive)"
                    )
    except zipfile.BadZipFile:
        return  # torch reports the damaged archive itself
    finally:
        handle.seek(start)
