"""Readers behind the `placement` collector: the container (`container.py`), the image
(`image.py`), the scheduler's allocation (`scheduler.py`) and the CPU affinity
(`affinity.py`). Each reads files under a root it is given, through the bounded reader."""

from __future__ import annotations

from pathlib import Path

from envsnap.files.reader import read_if_regular

# Marker files are a few KiB; mountinfo of a busy host is the largest, well under this.
MAX_MARKER_BYTES = 1024 * 1024


def read_text(root: Path, relative: str, max_bytes: int = MAX_MARKER_BYTES) -> str | None:
    """The text of the regular file `relative` under `root` (at most `max_bytes`), else None.

    /proc files are regular files of size 0 that are read to their end; a pipe, a device or a
    file over the cap is not read.
    """
    data = read_if_regular(root / relative, max_bytes)
    return None if data is None else data.decode("utf-8", errors="replace")
