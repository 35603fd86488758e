"""Digest trees of data files and directories: full, sample or stat mode, with a Merkle root.

Files are hashed in parallel threads: hashlib releases the GIL while it digests large buffers,
so threads use every core without the cost of processes. Each thread holds one read buffer,
so memory stays bounded whatever the file sizes. The walk follows symlinks (dataset caches are
made of them) but never enters a directory twice, and never opens anything but regular files
(a FIFO would block). Problems are recorded on the file or item; nothing here raises for bad
input.
"""

from __future__ import annotations

import errno
import hashlib
import operator
import os
import stat as stat_mod
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from envsnap.capturing.datacache import DigestCache, entry_key
from envsnap.manifest.hashing import CHUNK_BYTES
from envsnap.manifest.records import DataItem, FileEntry, HashMode

SAMPLE_BLOCK_BYTES = 1024 * 1024
# A file modified less than this before it was hashed may change again within the same mtime
# tick (1 s covers coarse filesystems such as NFS or HFS+); such digests are not cached.
RACY_WINDOW_NS = 1_000_000_000
_ERROR_LEAF = "error"
# Sort keys as C callables: a lambda per element is most of a sort's cost on 1,000 files.
_BY_NAME = operator.attrgetter("name")
_BY_REL = operator.attrgetter("rel")
_BY_SECOND = operator.itemgetter(1)


class BudgetExhausted(Exception):
    """The data time budget ran out before this file was hashed."""


@dataclass(frozen=True)
class HashOptions:
    mode: HashMode = "full"
    workers: int = 0  # 0: one per available core
    deadline: float | None = None  # time.monotonic() value
    max_listed: int = 10_000
    cache: DigestCache | None = None


class _Task:
    """One regular file to describe: where it is, its stat from the listing, and what hashing
    learns about it, as the manifest records it (`entry`, its size known from the start).

    A plain slotted class: one is made per file, and a dataclass's generated `__init__` with a
    default factory cost a cached re-capture of 1,000 files about 7% of its time.
    """

    __slots__ = ("entry", "path", "rel", "stat")

    def __init__(self, rel: bytes, path: str | bytes, stat: os.stat_result) -> None:
        self.rel, self.path, self.stat = rel, path, stat
        self.entry = FileEntry(size=stat.st_size)


def default_workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(32, cores))


def display_name(rel: bytes) -> str:
    """A JSON-safe key: UTF-8 names as they are, other bytes as \\x escapes."""
    return _decoded(rel)[0]


def _decoded(rel: bytes) -> tuple[str, bool]:
    """The display name of `rel`, and whether it was valid UTF-8 (one decode when it is)."""
    if not rel:
        return ".", True
    try:
        return rel.decode("utf-8"), True
    except UnicodeDecodeError:
        return rel.decode("utf-8", "backslashreplace"), False


def _oserror_text(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    return exc.strerror or type(exc).__name__


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExhausted


def _full_digest(fd: int, deadline: float | None) -> str:
    # Not envsnap.manifest.hashing.sha256_file: this loop must stop at the deadline and work on an fd
    # that was fstat-ed before and after, to detect data changing underneath.
    digest = hashlib.sha256()
    buffer = bytearray(CHUNK_BYTES)
    view = memoryview(buffer)
    while True:
        count = os.readv(fd, [buffer])
        if not count:
            break
        digest.update(view[:count])
        _check_deadline(deadline)
    return "sha256:" + digest.hexdigest()


def _sample_digest(fd: int, size: int, deadline: float | None) -> str:
    if size <= 3 * SAMPLE_BLOCK_BYTES:
        return _full_digest(fd, deadline)  # small files: identical to full mode
    digest = hashlib.sha256(b"envsnap-sample-v1\0" + struct.pack(">Q", size))
    for offset in (0, (size - SAMPLE_BLOCK_BYTES) // 2, size - SAMPLE_BLOCK_BYTES):
        digest.update(os.pread(fd, SAMPLE_BLOCK_BYTES, offset))
    return "sample:" + digest.hexdigest()


def _known(tasks: list[_Task], options: HashOptions) -> list[_Task]:
    """Fill every entry that needs no read (stat mode, or a cache hit); returns the rest.

    Runs inline, with one cache lookup for all files: handing thousands of cache hits to a
    thread pool, or taking the cache's lock per file, would cost more than the hits.
    """
    if options.mode == "stat":
        for task in tasks:
            task.entry.mtime_ns = task.stat.st_mtime_ns
        return []
    if options.cache is None:
        return list(tasks)
    mode = options.mode
    digests = options.cache.get_many([entry_key(mode, task.stat) for task in tasks])
    pending = []
    for task, digest in zip(tasks, digests, strict=True):
        if digest is None:
            pending.append(task)
        else:
            task.entry.digest = digest
    return pending


def _hash_task(task: _Task, options: HashOptions) -> None:
    entry, listed = task.entry, task.stat
    key = entry_key(options.mode, listed)
    try:
        _check_deadline(options.deadline)
        started_ns = time.time_ns()
        fd = os.open(task.path, os.O_RDONLY)
        try:
            before = os.fstat(fd)
            if options.mode == "sample":
                digest = _sample_digest(fd, before.st_size, options.deadline)
            else:
                digest = _full_digest(fd, options.deadline)
            after = os.fstat(fd)
        finally:
            os.close(fd)
    except BudgetExhausted:
        entry.error = "not hashed: data time budget exhausted"
        return
    except OSError as exc:
        entry.error = _oserror_text(exc)
        return
    entry.digest = digest
    moved = {(s.st_size, s.st_mtime_ns, s.st_ino) for s in (listed, before, after)}
    if len(moved) > 1:
        entry.unstable = True
        entry.size = after.st_size
        return
    if options.cache is not None and started_ns - after.st_mtime_ns >= RACY_WINDOW_NS:
        options.cache.put(key, digest)


def _walk(
    root: str, tasks: list[_Task], errors: dict[bytes, str], deadline: float | None = None
) -> list[bytes]:
    """Collect regular files under `root`, following symlinks, never visiting a dir twice.

    Returns the relative paths of the directories that were listed.
    """
    listed_dirs: list[bytes] = []
    # Each pending directory carries the (device, inode) of its ancestors: a directory that is
    # its own ancestor is a symlink loop. A directory linked twice elsewhere is simply read twice.
    # Listed by bytes path: names arrive as the bytes the manifest keys on, with no re-encoding.
    stack: list[tuple[bytes, bytes, frozenset[tuple[int, int]]]] = [
        (b"", os.fsencode(root), frozenset())
    ]
    while stack:
        rel, path, ancestors = stack.pop()
        if deadline is not None and time.monotonic() > deadline:
            # Symlinked directories reachable by many paths can make a tree huge: stop listing
            # at the budget and say so, rather than lose the whole section to a timeout.
            for pending_rel, _path, _ancestors in [(rel, path, ancestors), *stack]:
                errors[pending_rel] = "not listed: data budget exhausted"
            break
        try:
            dir_stat = os.stat(path)
            identity = (dir_stat.st_dev, dir_stat.st_ino)
            if identity in ancestors:
                errors[rel] = "symlink loop (links to its own parent directory)"
                continue
            with os.scandir(path) as listing:
                entries = sorted(listing, key=_BY_NAME)
        except OSError as exc:
            errors[rel] = _oserror_text(exc)
            continue
        listed_dirs.append(rel)
        inner = ancestors | {identity}
        for item in entries:
            child_rel = rel + b"/" + item.name if rel else item.name
            try:
                child_stat = os.stat(item.path)
            except OSError as exc:
                reason = _oserror_text(exc)
                errors[child_rel] = "broken symlink" if exc.errno == errno.ENOENT else reason
                continue
            if stat_mod.S_ISREG(child_stat.st_mode):  # files first: most entries are files
                tasks.append(_Task(child_rel, item.path, child_stat))
            elif stat_mod.S_ISDIR(child_stat.st_mode):
                stack.append((child_rel, item.path, inner))
            else:
                errors[child_rel] = "not a regular file (device, FIFO or socket): skipped"
    return listed_dirs


def _leaf(entry: FileEntry) -> str:
    if entry.digest is not None:
        return entry.digest
    if entry.error is None and entry.mtime_ns is not None:
        return f"stat:{entry.size}:{entry.mtime_ns}"
    return _ERROR_LEAF


def _merkle(tasks: list[_Task], errors: dict[bytes, str], dirs: list[bytes]) -> dict[bytes, str]:
    """Digest of every directory: sha256 over its sorted (kind, name, child digest) records."""
    children: dict[bytes, list[tuple[bytes, bytes, str]]] = {d: [] for d in dirs}

    def add(rel: bytes, kind: bytes, leaf: str) -> None:
        parent, _, name = rel.rpartition(b"/")
        children[parent].append((kind, name, leaf))

    for task in tasks:  # add() inlined: this loop runs once per file
        parent, _, name = task.rel.rpartition(b"/")
        digest = task.entry.digest
        children[parent].append((b"f", name, digest if digest is not None else _leaf(task.entry)))
    for rel in errors:
        if rel:
            add(rel, b"e", _ERROR_LEAF)
    digests: dict[bytes, str] = {}
    # Deepest first, so every sub-directory digest exists before its parent needs it.
    for directory in sorted(dirs, key=lambda d: d.count(b"/") + bool(d), reverse=True):
        # Each record: kind, the name's length as 4 big-endian bytes, name, child digest.
        records = b"".join(
            [
                b"%b%b%b%b\n" % (kind, len(name).to_bytes(4, "big"), name, leaf.encode())
                for kind, name, leaf in sorted(children[directory], key=_BY_SECOND)
            ]
        )
        digests[directory] = "sha256:" + hashlib.sha256(records).hexdigest()
        if directory:
            add(directory, b"d", digests[directory])
    return digests


def hash_path(declared: str, base: Path, options: HashOptions) -> DataItem:
    """Hash one declared file or directory into a `DataItem`. Never raises for bad input."""
    resolved = str(Path(base, declared)) if not os.path.isabs(declared) else declared
    resolved = os.path.abspath(resolved)
    item = DataItem(kind="missing", path=declared, resolved=resolved, mode=options.mode)
    try:
        top = os.stat(resolved)
    except OSError as exc:
        item.kind = "missing" if exc.errno == errno.ENOENT else "invalid"
        item.error = _oserror_text(exc)
        return item
    tasks: list[_Task] = []
    errors: dict[bytes, str] = {}
    dirs: list[bytes] | None = None
    if stat_mod.S_ISDIR(top.st_mode):
        item.kind = "directory"
        dirs = _walk(resolved, tasks, errors, options.deadline)
    elif stat_mod.S_ISREG(top.st_mode):
        item.kind = "file"
        tasks.append(_Task(os.fsencode(os.path.basename(resolved)), resolved, top))
    else:
        item.kind = "invalid"
        item.error = "not a regular file or directory"
        return item
    tasks.sort(key=_BY_REL)
    pending = _known(tasks, options)
    workers = options.workers or default_workers()
    if len(pending) > 1 and workers > 1:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="envsnap-hash") as pool:
            list(pool.map(lambda t: _hash_task(t, options), pending))
    else:
        for task in pending:
            _hash_task(task, options)
    _fill(item, tasks, errors, dirs, options.max_listed)
    return item


def _fill(
    item: DataItem,
    tasks: list[_Task],
    errors: dict[bytes, str],
    dirs: list[bytes] | None,
    max_listed: int,
) -> None:
    item.file_count = len(tasks)
    item.total_bytes = sum(t.entry.size or 0 for t in tasks)
    item.unstable = any(t.entry.unstable for t in tasks)
    problems: dict[str, str] = {}
    names = []
    all_utf8 = True
    for task in tasks:
        name, utf8 = _decoded(task.rel)
        names.append(name)
        if task.entry.error:
            problems[name] = task.entry.error
        elif not utf8:
            all_utf8 = False
            task.entry.error = "file name is not valid UTF-8 (shown with \\x escapes)"
            problems[name] = task.entry.error
    for rel, reason in errors.items():
        problems[display_name(rel)] = reason
    if dirs is not None:
        digests = _merkle(tasks, errors, dirs)
        item.root = digests.get(b"")
        item.dirs = {display_name(k): v for k, v in sorted(digests.items())[:max_listed]}
    else:
        entry = tasks[0].entry
        item.root = entry.digest or (
            None if entry.error else "sha256:" + hashlib.sha256(_leaf(entry).encode()).hexdigest()
        )
    listed = {name: t.entry for name, t in zip(names[:max_listed], tasks[:max_listed], strict=True)}
    for rel, reason in list(errors.items())[: max(0, max_listed - len(listed))]:
        listed[display_name(rel)] = FileEntry(error=reason)
    # Tasks are sorted by their bytes, and UTF-8 keeps that order in the decoded names: only
    # escaped names or listed errors need a sort.
    item.files = listed if all_utf8 and not errors else dict(sorted(listed.items()))
    item.files_truncated = len(tasks) + len(errors) > max_listed
    if problems:
        first = sorted(problems.items())[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        item.error = f"{first[0]}: {first[1]}{more}"
    elif item.unstable:
        item.error = "data changed while it was being hashed"
