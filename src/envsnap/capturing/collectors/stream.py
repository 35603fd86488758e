"""Run a program and digest its output as it arrives, never holding more than a cap in memory.

A runaway `git` (a huge binary change, a repository with millions of untracked files) writes
more than any manifest needs: its output is hashed chunk by chunk and only the first bytes are
kept, so memory stays bounded whatever it writes, and the deadline kills it if it runs long.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Streamed:
    """What a program wrote to stdout: its digest, size and first `keep` bytes."""

    sha256: str
    size: int
    head: bytes
    returncode: int
    stderr: str
    timed_out: bool

    @property
    def complete(self) -> bool:
        """True when `head` holds all of the output."""
        return len(self.head) == self.size


def run_streamed(
    argv: list[str],
    *,
    cwd: Path,
    timeout_s: float,
    keep: int,
    env: dict[str, str] | None = None,
) -> Streamed:
    """Run `argv` (never a shell); hash all of stdout, keep its first `keep` bytes.

    Past `timeout_s` the process is killed and `timed_out` is set. stderr is kept up to 4 KiB.
    """
    # stderr goes to a file, not a pipe: a program that fills a stderr pipe while we read
    # stdout would block until the deadline.
    with tempfile.TemporaryFile() as errors_file:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors_file,
        )
        timer = threading.Timer(timeout_s, process.kill)
        timer.daemon = True
        timer.start()
        digest = hashlib.sha256()
        size = 0
        head = bytearray()
        stdout = process.stdout
        if stdout is None:  # cannot happen with stdout=PIPE; keeps the type checker honest
            raise RuntimeError("no pipe for the program's output")
        try:
            while chunk := os.read(stdout.fileno(), _CHUNK):
                digest.update(chunk)
                size += len(chunk)
                if len(head) < keep:
                    head += chunk[: keep - len(head)]
            returncode = process.wait()
        finally:
            timed_out = timer.finished.is_set()  # set by the timer firing (before cancel below)
            timer.cancel()
            if process.poll() is None:
                process.kill()
                process.wait()
            stdout.close()
        errors_file.seek(0)
        errors = errors_file.read(4096)
    return Streamed(
        sha256=digest.hexdigest(),
        size=size,
        head=bytes(head),
        returncode=returncode,
        stderr=os.fsdecode(errors).strip(),
        timed_out=timed_out,
    )
