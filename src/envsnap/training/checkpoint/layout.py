"""The on-disk layout of `envsnap.training.resume.save_training_state` and its completion marker.

A save is a directory holding the state file and, written last, a JSON marker that records the
state file's sha256 and size. No marker, or a marker that does not match, means the save is
incomplete (interrupted, still running, or overwritten since) and must not be loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.files.reader import read_json
from envsnap.manifest.hashing import sha256_file

STATE_FILE = "training_state.pt"
MARKER = "COMPLETE.json"
FORMAT = "envsnap.training-state/1"


def is_training_state_dir(path: Path) -> bool:
    return path.is_dir() and ((path / STATE_FILE).exists() or (path / MARKER).exists())


def verify(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(marker, problem): the marker when it is present and matches, else why not."""
    marker_path, state_path = path / MARKER, path / STATE_FILE
    if not marker_path.exists():
        return None, (
            f"incomplete save: no completion marker {MARKER} (the save was interrupted or is "
            "still running)"
        )
    try:
        marker = read_json(marker_path, "a completion marker", max_bytes=1024 * 1024)
        expected = marker["files"][STATE_FILE]
        if marker.get("format") != FORMAT:
            return None, f"{MARKER} is not an envsnap training-state marker"
    except (EnvsnapError, KeyError, TypeError):
        return None, f"{MARKER} is unreadable or malformed"
    if not state_path.is_file():
        return None, f"incomplete save: {STATE_FILE} is missing"
    size = state_path.stat().st_size
    if size != expected.get("bytes") or "sha256:" + sha256_file(state_path) != expected.get(
        "sha256"
    ):
        return None, (
            f"{STATE_FILE} does not match its completion marker ({size} bytes, expected "
            f"{expected.get('bytes')}): it was partially written or changed after the save"
        )
    return marker, None
