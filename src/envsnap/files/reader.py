"""The one way envsnap reads an input file named by the user.

Only a regular file is read: opening a named pipe blocks until a writer appears, and a device
or /proc file may never end. The file is opened without blocking and checked with fstat, so
the check and the read see the same file. The size cap is checked before reading, and the read
itself is capped too, for files that grow while they are read.

Each caller names what it expected ("a manifest", "a trace file") and the error type its own
callers handle; every failure is that error with one line.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from envsnap.errors import EnvsnapError

MIB = 1024 * 1024
MAX_INPUT_BYTES = 64 * MIB


def open_input(
    path: str | os.PathLike[str], what: str, *, error: type[EnvsnapError] = EnvsnapError
) -> BinaryIO:
    """Open a regular file for reading in binary mode, or raise `error` with one line."""
    source = os.fspath(path)
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{source}: no such file") from None
    except IsADirectoryError:
        raise error(f"{source}: is a directory, expected {what}") from None
    except OSError as exc:
        raise error(f"{source}: cannot read: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "a pipe, socket or device"
        raise error(f"{source}: is {kind}, expected {what}")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_input(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[EnvsnapError] = EnvsnapError,
) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, or raise `error` with one line."""
    source = os.fspath(path)
    with open_input(source, what, error=error) as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise error(too_large(source, what, max_bytes))
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise error(f"{source}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(too_large(source, what, max_bytes))
    return data


def too_large(source: str, what: str, max_bytes: int) -> str:
    """The one-line message for an input over its cap."""
    size = f"{max_bytes // MIB} MiB" if max_bytes >= MIB else f"{max_bytes} bytes"
    return f"{source}: larger than {size}; not {what}"
