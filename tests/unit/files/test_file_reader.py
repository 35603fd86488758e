"""The one input-file reader: regular files only, size cap checked before reading."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envsnap.errors import ConfigError, EnvsnapError
from envsnap.files.reader import read_if_regular, read_input


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    assert read_input(path, "a text file") == b"hello"


def test_failures_are_one_line_of_the_callers_error_type(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        read_input(tmp_path / "missing", "a config file", error=ConfigError)
    with pytest.raises(EnvsnapError, match="is a directory, expected a config file"):
        read_input(tmp_path, "a config file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(EnvsnapError, match="is a pipe, socket or device, expected a manifest"):
        read_input(fifo, "a manifest")


def test_the_size_cap_is_checked_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "sparse.bin"
    with open(huge, "wb") as handle:
        handle.truncate(64 * 1024**3)  # sparse: reading it would take minutes
    with pytest.raises(EnvsnapError, match="larger than 1 MiB; not a key"):
        read_input(huge, "a key", max_bytes=1024 * 1024)


# read_if_regular: the quiet, cheap read for loops over many small files that may be missing.


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "METADATA"
    path.write_bytes(b"Name: x\r\n" * 20_000)  # several read chunks
    assert read_if_regular(path) == b"Name: x\r\n" * 20_000


def test_what_is_not_a_readable_regular_file_within_the_cap_is_none(tmp_path: Path) -> None:
    assert read_if_regular(tmp_path / "absent") is None
    assert read_if_regular(tmp_path) is None
    assert read_if_regular(tmp_path / "absent" / "below-a-missing-dir") is None
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    assert read_if_regular(big, max_bytes=100) is None
    assert read_if_regular(big, max_bytes=101) == b"x" * 101


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_none_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert read_if_regular(pipe) is None  # no writer: a blocking read would never return
