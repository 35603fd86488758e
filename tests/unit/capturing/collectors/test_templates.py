"""The templates section: file and text digests, and bad entries."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.capturing.collectors.templates import collect
from envsnap.capturing.config import CaptureConfig


def _context(
    tmp_path: Path, declared: dict[str, Any] | None = None, **inputs: Any
) -> CaptureContext:
    return CaptureContext(
        env={},
        cwd=tmp_path,
        config=CaptureConfig(declared={"templates": declared or {}}),
        inputs=inputs,
        deadline=time.monotonic() + 30,
    )


def test_files_and_texts_are_digested(tmp_path: Path) -> None:
    (tmp_path / "chat.jinja").write_text("{{ messages }}")
    section = collect(
        _context(
            tmp_path,
            {"files": {"chat": "chat.jinja"}},
            templates={"system": "You are helpful.", "again": Path("chat.jinja")},
        )
    )
    digest = "sha256:" + hashlib.sha256(b"{{ messages }}").hexdigest()
    assert section.templates["chat"].digest == digest
    assert section.templates["again"].digest == digest
    assert section.templates["system"].kind == "text"
    assert section.templates["system"].digest == (
        "sha256:" + hashlib.sha256(b"You are helpful.").hexdigest()
    )


def test_bad_entries_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    section = collect(_context(tmp_path, {"paths": ["missing.jinja", "adir"]}, templates=[7]))
    assert section.templates["missing.jinja"].error == "No such file or directory"
    assert section.templates["adir"].error == "is a directory"
    assert section.templates["templates[0]"].error == "expected a path or template text, got int"
    with pytest.raises(CollectorUnavailable):
        collect(_context(tmp_path))
