"""The one way envsnap reads an input file named by the user.

Only a regular file is read: opening a named pipe blocks until a writer appears, and a device
or /proc file may never end. The file is opened without blocking and checked with fstat, so
the check and the read see the same file. The size cap is checked before reading, and the read
itself is capped too, for files that grow while they are read.

Each caller names what it expected ("a manifest", "a trace file") and the error type its own
callers handle; every failure is that error with one line.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO

from envsnap.errors import EnvsnapError

MIB = 1024 * 1024
MAX_INPUT_BYTES = 64 * MIB
_CHUNK_BYTES = 1 << 16


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
    return _regular(fd, source, what, error)


def _regular(fd: int, source: str, what: str, error: type[EnvsnapError]) -> BinaryIO:
    """`fd` as a blocking binary file when it is a regular file; else closed, and `error`."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "a pipe, socket or device"
        raise error(f"{source}: is {kind}, expected {what}")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_if_regular(path: str | os.PathLike[str], max_bytes: int = MAX_INPUT_BYTES) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `max_bytes`, else None (absent,
    a directory, a pipe or device, larger, unreadable). Never blocks on a pipe.

    For loops over many small files that may be missing (three per installed package): no file
    object and no exception for the expected cases, about four times cheaper than `read_input`.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        size = 0
        while chunk := os.read(fd, _CHUNK_BYTES):
            size += len(chunk)
            if size > max_bytes:
                return None
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_input(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[EnvsnapError] = EnvsnapError,
) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, or raise `error` with one line."""
    source = os.fspath(path)
    return _read_capped(open_input(source, what, error=error), source, what, max_bytes, error)


def _read_capped(
    handle: BinaryIO, source: str, what: str, max_bytes: int, error: type[EnvsnapError]
) -> bytes:
    """All of `handle` (then closed) when it holds at most `max_bytes`, else `error`."""
    with handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise error(too_large(source, what, max_bytes))
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise error(f"{source}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(too_large(source, what, max_bytes))
    return data


# Inside a folder (a run directory another tool wrote), each component below the folder is
# opened from its parent's descriptor without following a link: neither a linked file nor a
# linked folder on the way can lead out, and a link swapped in after a check changes nothing.
# Where the platform cannot open relative to a descriptor, the resolved path is compared instead.
_WALKS_DESCRIPTORS = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def read_inside(
    root: str | os.PathLike[str],
    relative: str,
    what: str,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[EnvsnapError] = EnvsnapError,
) -> bytes:
    """The bytes of the regular file `relative` ("a/b.txt") inside the folder `root`, or `error`.

    No symbolic link below `root` is followed, even one that points back inside: the file and
    every folder on the way must be real. `root` itself is taken as given (resolve it first).
    """
    source = os.path.join(os.fspath(root), relative)
    *folders, name = _parts(relative, error)
    if not _WALKS_DESCRIPTORS:
        _refuse_resolved_link(root, relative, error)
        return read_input(source, what, max_bytes=max_bytes, error=error)
    parent = _open_folder(root, folders, error)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        raise error(_refusal(parent, name, source, exc)) from None
    finally:
        os.close(parent)
    return _read_capped(_regular(fd, source, what, error), source, what, max_bytes, error)


def entries_inside(
    root: str | os.PathLike[str],
    relative: str = "",
    *,
    max_entries: int = 100_000,
    error: type[EnvsnapError] = EnvsnapError,
) -> dict[str, str]:
    """Name -> "file", "dir", "link" or "other" for the folder `relative` inside `root`.

    The folder is reached as `read_inside` reaches a file; a link is listed, never followed.
    More than `max_entries` entries is `error`, like a file over its cap.
    """
    path = os.path.join(os.fspath(root), relative)
    parts = _parts(relative, error) if relative else []
    if _WALKS_DESCRIPTORS and os.scandir in os.supports_fd:
        folder: int | str = _open_folder(root, parts, error)
    else:
        _refuse_resolved_link(root, relative, error)
        folder = path
    kinds: dict[str, str] = {}
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if len(kinds) == max_entries:
                    raise error(f"{path}: more than {max_entries} entries; not listed")
                kinds[entry.name] = _kind(entry.stat(follow_symlinks=False).st_mode)
    except OSError as exc:
        raise error(f"{path}: cannot list: {exc.strerror or exc}") from None
    finally:
        if isinstance(folder, int):
            os.close(folder)
    return dict(sorted(kinds.items()))


def _parts(relative: str, error: type[EnvsnapError]) -> list[str]:
    parts = relative.replace(os.sep, "/").split("/")
    if os.path.isabs(relative) or any(part in ("", ".", "..") for part in parts):
        raise error(f"{relative}: not a plain path inside the folder")
    return parts


def _open_folder(
    root: str | os.PathLike[str], folders: list[str], error: type[EnvsnapError]
) -> int:
    """A descriptor of `root`/`folders`, each folder opened from the one above, no link followed."""
    path = os.fspath(root)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise error(f"{path}: cannot open the folder: {exc.strerror}") from None
    for folder in folders:
        path = os.path.join(path, folder)
        try:
            inner = os.open(folder, _FOLDER_FLAGS, dir_fd=fd)
        except OSError as exc:
            message = _refusal(fd, folder, path, exc)
            os.close(fd)
            raise error(message) from None
        os.close(fd)
        fd = inner
    return fd


def _refusal(parent: int, name: str, source: str, exc: OSError) -> str:
    """Why `name` (in the folder `parent`) could not be opened, in one line."""
    try:
        link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        link = False
    if link:
        return f"{source}: a symbolic link; links inside the folder are not followed"
    if isinstance(exc, FileNotFoundError):
        return f"{source}: no such file"
    return f"{source}: cannot read: {exc.strerror or exc}"


def _refuse_resolved_link(
    root: str | os.PathLike[str], relative: str, error: type[EnvsnapError]
) -> None:
    """Without descriptor walks: refuse a path whose resolved form differs (a link on the way)."""
    real_root = os.path.realpath(root)
    expected = os.path.normpath(os.path.join(real_root, relative))
    if os.path.realpath(expected) != expected:
        path = os.path.join(os.fspath(root), relative)
        raise error(f"{path}: a symbolic link; links inside the folder are not followed")


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    return "dir" if stat.S_ISDIR(mode) else "other"


def too_large(source: str, what: str, max_bytes: int) -> str:
    """The one-line message for an input over its cap."""
    size = f"{max_bytes // MIB} MiB" if max_bytes >= MIB else f"{max_bytes} bytes"
    return f"{source}: larger than {size}; not {what}"


# Limits on what an input may hold once read. Manifests nest a handful of levels; free-form
# maps (`extra`, `other`) are the only place depth is up to the writer, and 64 levels is far
# beyond any real use while keeping every recursive consumer well inside Python's stack.
MAX_DEPTH = 64
# Integers in envsnap's inputs are sizes, counts, pids and seeds: 20 digits hold any 64-bit
# value. A longer one is refused rather than carried into arithmetic or formatting.
MAX_INT_DIGITS = 20
# One line of a line-oriented input (a trace record, a collect_env line, a requirement).
MAX_LINE_CHARS = 1024 * 1024
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def decode_utf8(
    data: bytes, source: str, what: str, *, error: type[EnvsnapError] = EnvsnapError
) -> str:
    """Strict UTF-8 text (encoded surrogates refused too), or `error` with one line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{source}: not UTF-8 text at byte {exc.start} (binary data?), not {what}"
        ) from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two values under one key: a reader that keeps the other one sees other content (and a
    # signature would vouch for the content only one of them sees).
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {duplicate[:40]!r}")
    return document


def _reusing(named: Mapping[str, dict[str, Any]]) -> Callable[[list[tuple[str, Any]]], Any]:
    """An object hook that hands back an already parsed object equal to the new one.

    Two manifests of one environment share most of their content (200k package entries, say):
    reusing the first one's equal objects keeps the second one's copies out of memory. Objects
    are matched by their `name` and replaced only when equal, so the value read is the same.
    """

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        document = _unique_keys(pairs)
        name = document.get("name")
        if type(name) is str:
            earlier = named.get(name)
            if earlier is not None and earlier == document:
                return earlier
        return document

    return hook


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    # json accepts NaN and Infinity, which are not JSON and cannot be digested canonically.
    raise ValueError(f"{name} is not valid JSON")


def parse_json(
    data: bytes,
    source: str,
    what: str,
    *,
    error: type[EnvsnapError] = EnvsnapError,
    max_depth: int | None = MAX_DEPTH,
    reuse: Mapping[str, dict[str, Any]] | None = None,
) -> Any:
    """Parse strict JSON: UTF-8, no duplicate keys, no NaN/Infinity, no lone surrogates,
    bounded integers and (unless `max_depth` is None) bounded nesting.

    `max_depth=None` leaves depth to the caller: a manifest's structure is bounded by its
    model, so only its free-form maps need checking, which is much cheaper on a large file.
    `reuse` maps names to objects parsed before: an equal object with that `name` is replaced
    by the earlier one (see `_reusing`).
    """
    if not data or data.isspace():  # (strip() would copy a large file to find out)
        raise error(f"{source}: file is empty, not {what}")
    text = decode_utf8(data, source, what, error=error)
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys if reuse is None else _reusing(reuse),
            parse_int=_bounded_int,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise error(
            f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}), "
            f"not {what}"
        ) from None
    except RecursionError:
        raise error(f"{source}: JSON nested too deeply, not {what}") from None
    except ValueError as exc:  # duplicate keys, NaN/Infinity, out-of-range numbers
        raise error(f"{source}: not valid JSON ({exc}), not {what}") from None
    if _SURROGATE_ESCAPE.search(data) and not _encodable(value):
        raise error(f"{source}: JSON holds a lone surrogate (\\ud800-\\udfff), not {what}")
    if max_depth is not None:
        check_depth(value, max_depth, source, what, error=error)
    return value


def _encodable(value: Any) -> bool:
    """True when every string (keys included) is valid Unicode, i.e. encodes as UTF-8."""
    stack = [value]
    while stack:
        item = stack.pop()
        try:
            if isinstance(item, str):
                item.encode("utf-8")
            elif isinstance(item, dict):
                "".join(item).encode("utf-8")
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        except UnicodeEncodeError:
            return False
    return True


def check_depth(
    value: Any, limit: int, source: str, what: str, *, error: type[EnvsnapError] = EnvsnapError
) -> None:
    """Refuse a value nested more than `limit` levels (without recursing ourselves)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, (dict, list)):
            if depth > limit:
                raise error(f"{source}: nested deeper than {limit} levels, not {what}")
            stack.extend(
                (child, depth + 1) for child in children if isinstance(child, (dict, list))
            )


def read_json(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[EnvsnapError] = EnvsnapError,
    max_depth: int | None = MAX_DEPTH,
) -> Any:
    """A regular file of strict JSON (see `parse_json`), or `error` with one line."""
    source = os.fspath(path)
    data = read_input(source, what, max_bytes=max_bytes, error=error)
    return parse_json(data, source, what, error=error, max_depth=max_depth)


def read_lines(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    max_line: int = MAX_LINE_CHARS,
    error: type[EnvsnapError] = EnvsnapError,
) -> Iterator[tuple[int, str]]:
    """(number, line) of a UTF-8 text file, streamed: no more than one line is in memory.

    Lines keep their newline (a last line without one was cut short). A line over `max_line`
    characters, bytes past `max_bytes` or invalid UTF-8 are `error` with one line.
    """
    source = os.fspath(path)
    with open_input(source, what, error=error) as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise error(too_large(source, what, max_bytes))
        text = io.TextIOWrapper(handle, encoding="utf-8", errors="strict", newline=None)
        total = 0
        number = 0
        while True:
            try:
                line = text.readline(max_line + 1)
            except UnicodeDecodeError:
                raise error(
                    f"{source}: not UTF-8 text near line {number + 1}, not {what}"
                ) from None
            except OSError as exc:
                raise error(f"{source}: cannot read: {exc.strerror or exc}") from None
            if not line:
                return
            number += 1
            total += len(line)
            if len(line) > max_line:
                raise error(f"{source}: line {number} is longer than {max_line} characters")
            if total > max_bytes:
                raise error(too_large(source, what, max_bytes))
            yield number, line
