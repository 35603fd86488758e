"""The one input-file reader: regular files only, size cap checked before reading."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envsnap.errors import ConfigError, EnvsnapError
from envsnap.files.reader import read_input


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
