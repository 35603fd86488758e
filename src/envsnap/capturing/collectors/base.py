"""The collector contract and the context every collector reads the host through.

A collector is read-only: it never initialises CUDA, never imports torch (the `torch` collector
only reads a torch that the job already imported, or that `--torch` asked for), never runs a
shell, and gives every subprocess a timeout. Expected absence (no git, no GPU, nothing to read)
is signalled by raising `CollectorUnavailable`, which becomes status `skipped`; any other
exception becomes status `error`. Either way the manifest is still written.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.redact import DEFAULT_REDACTOR, Redactor
from envsnap.manifest.records import Section


class CollectorUnavailable(Exception):
    """The section cannot be collected here for an expected reason (recorded as `skipped`)."""


DELETED_SUFFIX = " (deleted)"


def working_directory() -> Path:
    """The process's working directory, even when it was deleted under the job.

    `Path.cwd()` raises then; the path it had is still known (the kernel's /proc link, else
    $PWD), and is returned with a " (deleted)" suffix, as Linux shows it. Nothing exists
    there, so collectors that look at it report what they could not read instead of failing
    the capture.
    """
    try:
        return Path.cwd()
    except FileNotFoundError:
        try:
            where = os.readlink("/proc/self/cwd")
        except OSError:
            where = os.environ.get("PWD") or "."
        return Path(where if where.endswith(DELETED_SUFFIX) else where + DELETED_SUFFIX)


@dataclass(frozen=True)
class TorchHandle:
    """torch as one capture sees it, settled before any collector starts.

    `imported_by` is "job" when the process had imported torch before the capture, "envsnap"
    when `--torch` asked the capture to import it, None when there is no torch (`reason` says
    why). Collectors that describe the job's live state read only a job's torch.
    """

    module: Any
    imported_by: Literal["job", "envsnap"] | None
    reason: str | None = None


@dataclass
class CaptureContext:
    """The host as collectors see it: environment, working directory, config, job objects.

    Tests build one with a controlled `env` and `cwd`; production builds it from the process.
    """

    env: Mapping[str, str]
    cwd: Path
    config: CaptureConfig = field(default_factory=CaptureConfig)
    redactor: Redactor = DEFAULT_REDACTOR
    # Objects handed to the in-job API (model=, optimizer=, dataloader=...), by keyword.
    inputs: Mapping[str, Any] = field(default_factory=dict)
    # Monotonic time by which the whole capture must be done.
    deadline: float = field(default_factory=lambda: time.monotonic() + 10.0)
    # True when the capturing process is the job itself (the in-job API), not a CLI beside it.
    in_job: bool = False
    # The top-level modules the job had loaded when it called the in-job API (before envsnap
    # imported anything for the capture); None for a capture from outside the job.
    job_modules: frozenset[str] | None = None
    # Settled once before the collectors start (run.resolve_torch), so that what a collector
    # sees never depends on whether another collector's `import torch` has finished. None in
    # contexts built directly (tests): then the process's torch, if imported, is the job's.
    torch: TorchHandle | None = None
    # The root of the filesystem the placement collector reads container and scheduler
    # markers under (/.dockerenv, /proc/1/cgroup, /sys/devices/system/node...); tests plant
    # a container's files in a folder of their own.
    files_root: Path = field(default_factory=lambda: Path("/"))

    @classmethod
    def from_process(cls, **kwargs: Any) -> CaptureContext:
        return cls(env=dict(os.environ), cwd=working_directory(), **kwargs)

    def job_torch(self) -> Any:
        """The torch module the job imported (None without one); never one the capture
        imported for `--torch`."""
        if self.torch is None:
            return sys.modules.get("torch")
        return self.torch.module if self.torch.imported_by == "job" else None

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def run(self, argv: list[str], *, timeout: float = 5.0) -> subprocess.CompletedProcess[str]:
        """Run a program (never a shell) with a timeout bounded by the capture deadline."""
        limit = max(0.1, min(timeout, self.remaining()))
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
            env=dict(self.env),
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
        )


CollectFn = Callable[[CaptureContext], Section]


@dataclass(frozen=True)
class Collector:
    """A registered collector. `name` is the registry key and the manifest field it fills."""

    name: str
    collect: CollectFn
    timeout_s: float = 5.0
    description: str = ""
    # Runs alone, after the concurrent ones have finished or been abandoned: it changes a
    # process-wide setting for a moment (the probe sets torch's thread count to 1).
    exclusive: bool = False
