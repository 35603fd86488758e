"""Run a program and digest its output as it arrives, never holding more than a cap in memory.

A runaway `git` (a huge binary change, a repository with millions of untracked files, a hostile
`git` first on PATH) writes more than any manifest needs: its output is hashed chunk by chunk
and only the first bytes are kept, so memory stays bounded whatever it writes. The program is
killed, with any children it started, when its output passes `max_bytes` or its time runs out.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

_CHUNK = 1024 * 1024
STDERR_KEEP_BYTES = 4096
# After the kill, how long to wait for the pipes to close: a child that left the process group
# may still hold them, and its output is then abandoned rather than waited for.
_DRAIN_GRACE_S = 0.5


@dataclass(frozen=True)
class Streamed:
    """What a program wrote to stdout: its digest, size and first `keep` bytes.

    `capped` is set when the output passed `max_bytes` and the program was killed: `size` and
    `sha256` then cover only what was read.
    """

    sha256: str
    size: int
    head: bytes
    returncode: int
    stderr: str
    timed_out: bool
    capped: bool = False

    @property
    def complete(self) -> bool:
        """True when `head` holds all of the output."""
        return len(self.head) == self.size and not self.capped


class _Drain(threading.Thread):
    """Reads one pipe to its end: keeps its first `keep` bytes and, if asked, digests it all.

    Stops at `limit` bytes. The thread closes the pipe itself when it is done, so that a pipe
    still held by an escaped child is never closed under a read in progress.
    """

    def __init__(self, pipe: IO[bytes], keep: int, *, digest: bool, limit: int | None) -> None:
        super().__init__(name="envsnap-stream", daemon=True)
        self.pipe, self.keep, self.limit = pipe, keep, limit
        self._digest = hashlib.sha256() if digest else None
        self.head = bytearray()
        self.size = 0
        self.over_limit = False
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            while not self.stop.is_set() and (chunk := os.read(self.pipe.fileno(), _CHUNK)):
                if self.limit is not None and self.size + len(chunk) > self.limit:
                    chunk = chunk[: self.limit - self.size]
                    self.over_limit = True
                self.size += len(chunk)
                if self._digest is not None:
                    self._digest.update(chunk)
                if len(self.head) < self.keep:
                    self.head += chunk[: self.keep - len(self.head)]
                if self.over_limit:
                    return
        finally:
            self.pipe.close()

    def hexdigest(self) -> str:
        return (self._digest or hashlib.sha256()).hexdigest()


def run_streamed(
    argv: list[str],
    *,
    cwd: Path,
    timeout_s: float,
    keep: int,
    env: dict[str, str] | None = None,
    max_bytes: int | None = None,
) -> Streamed:
    """Run `argv` (never a shell); hash stdout, keep its first `keep` bytes.

    Past `timeout_s` the program is killed and `timed_out` is set; past `max_bytes` of stdout it
    is killed and `capped` is set. stderr is kept up to 4 KiB, the rest read and dropped.
    """
    deadline = time.monotonic() + timeout_s
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Its own group, so that a kill reaches the programs it started too.
        start_new_session=os.name == "posix",
    )
    # Both pipes are read at once: a program that fills one while we wait on the other blocks.
    stdout = _Drain(_pipe(process.stdout), keep, digest=True, limit=max_bytes)
    stderr = _Drain(_pipe(process.stderr), STDERR_KEEP_BYTES, digest=False, limit=None)
    stdout.start()
    stderr.start()
    finished = _wait_for(process, stdout, stderr, deadline=deadline)
    if not finished or stdout.over_limit:
        _kill_group(process)
    returncode = process.wait()
    for drain in (stdout, stderr):
        drain.join(_DRAIN_GRACE_S)
        drain.stop.set()
    return Streamed(
        sha256=stdout.hexdigest(),
        size=stdout.size,
        head=bytes(stdout.head),
        returncode=returncode,
        stderr=os.fsdecode(bytes(stderr.head)).strip(),
        timed_out=not finished,
        capped=stdout.over_limit,
    )


def _wait_for(process: subprocess.Popen[bytes], *drains: _Drain, deadline: float) -> bool:
    """Wait until the pipes are read to their end (or stdout to its limit) and the program has
    exited; False when the deadline comes first. The program is reaped only once it exited by
    itself, so a kill after a False still reaches its group and nothing else."""
    for drain in drains:
        drain.join(max(0.0, deadline - time.monotonic()))
        if drain.is_alive():
            return False
        if drain.over_limit:
            return True
    try:
        process.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the program and whatever it started (it leads its own process group). Called only
    before the program is reaped, so its group id cannot belong to anyone else yet."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    if stream is None:  # cannot happen with PIPE; keeps the type checker honest
        raise RuntimeError("no pipe for the program's output")
    return stream
