"""Atomic writes into special files: a device or pipe is written into, never replaced."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from envsnap.files.atomic import write_atomic


def _read_fifo(path: Path, into: list[bytes]) -> None:
    with open(path, "rb") as pipe:
        into.append(pipe.read())


def test_a_named_pipe_target_is_written_into_and_stays_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "out.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, received))
    reader.start()
    # The reader opens the pipe in its own time; retry until the non-blocking open finds it.
    for _ in range(200):
        try:
            write_atomic(fifo, b"payload\n")
            break
        except OSError:
            threading.Event().wait(0.01)
    reader.join(timeout=10)
    assert received == [b"payload\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.pipe"]  # no temp file left


def test_a_named_pipe_without_a_reader_fails_at_once_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "out.pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        write_atomic(fifo, b"x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_exclusive_refuses_an_existing_special_file(tmp_path: Path) -> None:
    fifo = tmp_path / "out.pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileExistsError):
        write_atomic(fifo, b"x", exclusive=True)


def test_a_regular_file_is_still_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "m.json"
    target.write_bytes(b"old content that is longer")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
