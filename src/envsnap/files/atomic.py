"""Atomic file writes: a reader (or a crash) sees either no file or the complete file."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
from pathlib import Path

# Python exposes O_TMPFILE only where the OS has it (Linux).
_O_TMPFILE: int | None = getattr(os, "O_TMPFILE", None)


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, mode: int | None = None, exclusive: bool = False
) -> Path:
    """Write `data` to `path`: a temp file in the same directory, fsync, then rename.

    The temp file lives beside the target so the rename never crosses a filesystem, and the
    directory is fsynced so the rename itself survives a power loss. On Linux the data goes
    to an unnamed O_TMPFILE inode that is given a name only after fsync, just before the
    rename: a process killed while writing leaves nothing behind, not even a temp file.
    The new file's mode follows the umask, as a plain `open` would; with `mode` (a private
    key's 0o600) the file has that mode from its first byte, never a wider one. With
    `exclusive`, an existing file is an error (FileExistsError), not replaced, and no
    temporary file is left behind.
    """
    target = Path(path)
    if _is_special(target):
        if exclusive:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))
        _write_special(target, data)
        return target
    directory = target.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file sits where the directory should be
        raise NotADirectoryError(
            errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(directory)
        ) from None
    if not _write_unnamed(directory, target, data, mode, exclusive):
        _write_named(directory, target, data, mode, exclusive)
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return target


def _is_special(target: Path) -> bool:
    """True when the target exists and is neither a regular file nor a directory.

    `-o /dev/null` or `-o /dev/stdout` must write into that device or pipe: renaming a temp file
    over it would replace a system-wide device node with a regular file.
    """
    try:
        mode = os.stat(target).st_mode  # follows links: /dev/stdout -> /proc/self/fd/1
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_special(target: Path, data: bytes) -> None:
    """Write straight into a device, pipe or socket; atomicity has no meaning there."""
    # O_NONBLOCK on open only: a named pipe with no reader fails at once (ENXIO), not hangs.
    fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _temp_name(directory: Path, target: Path) -> Path:
    return directory / f".{target.name}.{secrets.token_hex(6)}.tmp"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _write_unnamed(
    directory: Path, target: Path, data: bytes, mode: int | None, exclusive: bool
) -> bool:
    """Write through an O_TMPFILE inode; False when the OS or filesystem lacks it."""
    if _O_TMPFILE is None:
        return False
    try:
        fd = os.open(directory, _O_TMPFILE | os.O_WRONLY, 0o666 if mode is None else mode)
    except OSError:  # EOPNOTSUPP, EISDIR on old kernels, EINVAL: use a named temp file
        return False
    try:
        _write_all(fd, data)
        inode = f"/proc/self/fd/{fd}"
        # A new target gets its name in one step, so a kill at any moment leaves either no file
        # or the whole one; only replacing an existing file needs a temp name and a rename.
        try:
            os.link(inode, target, follow_symlinks=True)
            return True
        except FileExistsError:
            if exclusive:
                raise
        except OSError:  # no /proc: fall back to a named temp file
            return False
        temp = _temp_name(directory, target)
        try:
            os.link(inode, temp, follow_symlinks=True)
        except OSError:
            return False
        _replace(temp, target)
    finally:
        os.close(fd)
    return True


def _write_named(
    directory: Path, target: Path, data: bytes, mode: int | None, exclusive: bool
) -> None:
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    temp = Path(temp_name)
    try:
        # mkstemp makes the file 0600; give it the mode asked for, or the one open() would.
        if mode is None:
            umask = os.umask(0o022)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    os.close(fd)
    if exclusive:
        try:
            os.link(temp, target)  # fails when the target exists, unlike rename
        finally:
            temp.unlink()
        return
    _replace(temp, target)


def _replace(temp: Path, target: Path) -> None:
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
