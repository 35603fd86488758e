"""The in-job API: capture from inside a training script without ever breaking it."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from envsnap.manifest import CollectorRecord, Manifest, RunInfo, ToolInfo

logger = logging.getLogger("envsnap")


def capture(
    path: str | Path | None = None,
    *,
    label: str | None = None,
    extra: dict[str, Any] | None = None,
    only: list[str] | None = None,
    skip: list[str] | None = None,
    budget_s: float | None = None,
    **inputs: Any,
) -> Manifest:
    """Capture this process. Job objects (model=, optimizer=, ...) are passed by keyword."""
    import os

    started = time.perf_counter()
    try:
        from envsnap.capture import capture_process
        from envsnap.config import discover_config

        config = discover_config(Path.cwd())
        if budget_s is not None:
            config = config.with_overrides(budget_s=budget_s)
        manifest = capture_process(
            config=config, only=only, skip=skip, label=label, inputs=inputs, extra=extra
        )
    except Exception as exc:
        logger.warning("envsnap: capture failed: %s", exc)
        manifest = Manifest(
            tool=ToolInfo(version=_version(), collectors_requested=[], collectors_run=[]),
            created_at=datetime.now(timezone.utc),
            run=RunInfo(argv=[], cwd=os.getcwd(), label=label, pid=os.getpid()),
            collectors={
                "capture": CollectorRecord(
                    status="error",
                    reason=f"{type(exc).__name__}: {exc}"[:500],
                    duration_ms=round((time.perf_counter() - started) * 1000, 3),
                )
            },
        ).sealed()
    if path is not None:
        try:
            from envsnap.manifest import write_manifest

            write_manifest(manifest, path)
        except OSError as exc:
            logger.warning("envsnap: could not write %s: %s", path, exc)
    return manifest


def _version() -> str:
    from envsnap._version import __version__

    return __version__
