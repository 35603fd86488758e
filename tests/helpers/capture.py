"""Capture contexts for collector tests, and what this host lets a test make unreadable."""

from __future__ import annotations

import os
import time
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.manifest.records import Section, plain
from envsnap.manifest.sections import SECTION_MODELS


def capture_context(
    cwd: Path, env: dict[str, str] | None = None, budget_s: float = 30.0
) -> CaptureContext:
    """A CaptureContext on `cwd` with a controlled environment (default: this process's)."""
    return CaptureContext(
        env=dict(os.environ) if env is None else env,
        cwd=cwd,
        deadline=time.monotonic() + budget_s,
    )


def assert_valid_section(name: str, section: Section) -> None:
    """What a collector wrote is what a reader takes: its JSON form validates strictly against
    the section's model and dumps back unchanged (no coercion, no missing default)."""
    document = plain(section)
    model = SECTION_MODELS[name].model_validate(document, strict=True)
    assert model.model_dump(mode="json") == document


def reads_blocked_by_chmod(directory: Path) -> bool:
    """Whether `chmod 000` stops this process reading a file (not so for root)."""
    probe = directory / ".chmod-probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        probe.read_bytes()
    except PermissionError:
        return True
    finally:
        probe.chmod(0o600)
        probe.unlink()
    return False
