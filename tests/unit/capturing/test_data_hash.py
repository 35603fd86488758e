"""Data digest trees on real files: Merkle roots, modes, cache, budget and bad input."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

import pytest

from envsnap.capturing.datacache import DigestCache
from envsnap.capturing.datahash import HashOptions, hash_path
from envsnap.manifest.records import plain

OLD = 1_600_000_000  # a fixed past mtime, outside the racy window


def _tree(root: Path) -> Path:
    (root / "train" / "shard").mkdir(parents=True)
    (root / "train" / "a.jsonl").write_bytes(b'{"text": "alpha"}\n' * 100)
    (root / "train" / "shard" / "b.bin").write_bytes(bytes(range(256)) * 64)
    (root / "train" / "c.txt").write_bytes(b"gamma\n")
    for path in (root / "train").rglob("*"):
        os.utime(path, (OLD, OLD))
    return root / "train"


def test_full_mode_digests_equal_sha256_of_the_bytes(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    item = hash_path(str(data), tmp_path, HashOptions())
    assert item.kind == "directory" and item.error is None
    assert item.file_count == 3
    assert item.total_bytes == sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
    expected = hashlib.sha256((data / "shard" / "b.bin").read_bytes()).hexdigest()
    assert item.files["shard/b.bin"].digest == f"sha256:{expected}"
    assert set(item.dirs) == {".", "shard"}
    assert item.root == item.dirs["."]


def test_one_changed_byte_changes_exactly_that_file_and_the_root(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    before = hash_path(str(data), tmp_path, HashOptions())
    target = data / "shard" / "b.bin"
    content = bytearray(target.read_bytes())
    content[1000] ^= 0x01
    target.write_bytes(bytes(content))
    after = hash_path(str(data), tmp_path, HashOptions())
    changed = {name for name in before.files if before.files[name] != after.files[name]}
    assert changed == {"shard/b.bin"}
    assert after.root != before.root
    assert after.dirs["shard"] != before.dirs["shard"]
    assert after.total_bytes == before.total_bytes


def test_renaming_a_file_changes_the_root_but_not_the_digest(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    before = hash_path(str(data), tmp_path, HashOptions())
    (data / "c.txt").rename(data / "d.txt")
    after = hash_path(str(data), tmp_path, HashOptions())
    assert after.files["d.txt"].digest == before.files["c.txt"].digest
    assert after.root != before.root


def test_single_file_root_is_its_digest_and_workers_do_not_change_results(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    single = hash_path(str(data / "c.txt"), tmp_path, HashOptions())
    assert single.kind == "file"
    assert single.root == "sha256:" + hashlib.sha256(b"gamma\n").hexdigest()
    serial = hash_path(str(data), tmp_path, HashOptions(workers=1))
    parallel = hash_path(str(data), tmp_path, HashOptions(workers=4))
    assert serial.root == parallel.root and serial.files == parallel.files


def test_sample_mode_reads_head_middle_tail_and_matches_full_for_small_files(
    tmp_path: Path,
) -> None:
    data = _tree(tmp_path)
    big = data / "big.bin"
    big.write_bytes(b"\0" * (5 * 1024 * 1024))
    full = hash_path(str(data), tmp_path, HashOptions(mode="full"))
    sample = hash_path(str(data), tmp_path, HashOptions(mode="sample"))
    assert sample.files["c.txt"].digest == full.files["c.txt"].digest
    sampled = sample.files["big.bin"].digest
    assert sampled is not None and sampled.startswith("sample:")
    # A byte outside the three sampled blocks is not seen; one inside the middle block is.
    with big.open("r+b") as handle:
        handle.seek(1024 * 1024 + 10)
        handle.write(b"\1")
    assert hash_path(str(big), tmp_path, HashOptions(mode="sample")).root == sampled
    with big.open("r+b") as handle:
        handle.seek(len(b"\0" * (5 * 1024 * 1024)) // 2)
        handle.write(b"\1")
    assert hash_path(str(big), tmp_path, HashOptions(mode="sample")).root != sampled


def test_stat_mode_records_sizes_and_mtimes_without_digests(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    item = hash_path(str(data), tmp_path, HashOptions(mode="stat"))
    assert item.files["c.txt"].digest is None
    assert item.files["c.txt"].mtime_ns == OLD * 1_000_000_000
    os.utime(data / "c.txt", (OLD + 5, OLD + 5))
    assert hash_path(str(data), tmp_path, HashOptions(mode="stat")).root != item.root


def test_cache_serves_unchanged_files_and_misses_on_change(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    cache_file = tmp_path / "cache" / "c.json"
    first = DigestCache(cache_file)
    item1 = hash_path(str(data), tmp_path, HashOptions(cache=first))
    first.save()
    assert first.hits == 0 and cache_file.is_file()
    second = DigestCache(cache_file)
    item2 = hash_path(str(data), tmp_path, HashOptions(cache=second))
    assert second.hits == 3 and item2.root == item1.root
    # Same size and mtime restored: ctime still moves, so the change is seen.
    (data / "c.txt").write_bytes(b"GAMMA\n")
    os.utime(data / "c.txt", (OLD, OLD))
    third = DigestCache(cache_file)
    item3 = hash_path(str(data), tmp_path, HashOptions(cache=third))
    assert third.hits == 2
    assert item3.files["c.txt"].digest == "sha256:" + hashlib.sha256(b"GAMMA\n").hexdigest()


def test_cached_recapture_stats_each_file_once_and_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _tree(tmp_path)
    cache_file = tmp_path / "c.json"
    first = DigestCache(cache_file)
    item1 = hash_path(str(data), tmp_path, HashOptions(cache=first))
    first.save()
    calls: dict[str, list[str]] = {"stat": [], "open": []}
    real_stat, real_open = os.stat, os.open

    def counting_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        calls["stat"].append(os.fsdecode(path))  # type: ignore[arg-type]
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    def counting_open(path: object, *args: object, **kwargs: object) -> int:
        calls["open"].append(os.fsdecode(path))  # type: ignore[arg-type]
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    again = DigestCache(cache_file)
    monkeypatch.setattr(os, "stat", counting_stat)
    monkeypatch.setattr(os, "open", counting_open)
    item2 = hash_path(str(data), tmp_path, HashOptions(cache=again))
    monkeypatch.undo()
    assert item2.root == item1.root and again.hits == 3
    files = [p for p in calls["stat"] if os.path.isfile(p)]
    assert sorted(files) == sorted(str(p) for p in data.rglob("*") if p.is_file())
    assert [p for p in calls["open"] if p.startswith(str(data))] == []


def test_cache_entries_of_the_wrong_type_are_misses(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    cache_file = tmp_path / "c.json"
    first = DigestCache(cache_file)
    item1 = hash_path(str(data), tmp_path, HashOptions(cache=first))
    first.save()
    document = json.loads(cache_file.read_text())
    document["entries"] = {key: 7 for key in document["entries"]}
    cache_file.write_text(json.dumps(document))
    again = DigestCache(cache_file)
    item2 = hash_path(str(data), tmp_path, HashOptions(cache=again))
    assert again.hits == 0 and item2.root == item1.root


def test_recently_modified_files_are_not_cached(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.txt"
    fresh.write_bytes(b"just written")
    cache = DigestCache(tmp_path / "c.json")
    hash_path(str(fresh), tmp_path, HashOptions(cache=cache))
    cache.save()
    assert not (tmp_path / "c.json").exists()


def test_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    cache_file = tmp_path / "c.json"
    cache_file.write_bytes(b"\x80 not json")
    cache = DigestCache(cache_file)
    item = hash_path(str(data), tmp_path, HashOptions(cache=cache))
    assert item.error is None and cache.hits == 0


def test_missing_path_and_exhausted_budget_are_recorded(tmp_path: Path) -> None:
    missing = hash_path("nope", tmp_path, HashOptions())
    assert missing.kind == "missing" and missing.error == "no such file or directory"
    data = _tree(tmp_path)
    late = hash_path(str(data), tmp_path, HashOptions(deadline=time.monotonic() - 1))
    assert late.error is not None and "budget exhausted" in late.error
    assert all(entry.digest is None for entry in late.files.values())


def test_symlinks_are_followed_and_loops_recorded(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    (data / "link.txt").symlink_to(data / "c.txt")
    (data / "shard" / "up").symlink_to(data)
    (data / "self").symlink_to(data / "self")
    (data / "dangling").symlink_to(tmp_path / "gone")
    item = hash_path(str(data), tmp_path, HashOptions())
    assert item.files["link.txt"].digest == item.files["c.txt"].digest
    assert item.files["shard/up"].error == "symlink loop (links to its own parent directory)"
    assert item.files["self"].error == "symlink loop"
    assert item.files["dangling"].error == "broken symlink"
    assert item.error is not None and "(and 2 more)" in item.error
    assert item.root is not None


def test_fifo_is_never_opened(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    os.mkfifo(data / "pipe")
    item = hash_path(str(data), tmp_path, HashOptions())  # would block forever if opened
    assert item.files["pipe"].error is not None and "not a regular file" in item.files["pipe"].error


def test_non_utf8_names_are_hashed_escaped_and_flagged(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    with open(os.fsencode(data) + b"/caf\xe9.txt", "wb") as handle:
        handle.write(b"latin-1 name")
    item = hash_path(str(data), tmp_path, HashOptions())
    entry = item.files["caf\\xe9.txt"]
    assert entry.digest == "sha256:" + hashlib.sha256(b"latin-1 name").hexdigest()
    assert entry.error is not None and "not valid UTF-8" in entry.error
    json.dumps(plain(item))  # serialisable


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of permissions")
def test_permission_denied_is_recorded_on_the_file_and_directory(tmp_path: Path) -> None:
    data = _tree(tmp_path)
    (data / "c.txt").chmod(0)
    (data / "shard").chmod(0)
    try:
        item = hash_path(str(data), tmp_path, HashOptions())
    finally:
        (data / "c.txt").chmod(0o644)
        (data / "shard").chmod(0o755)
    assert item.files["c.txt"].error == "permission denied"
    assert item.files["shard"].error == "permission denied"
    assert item.files["a.jsonl"].digest is not None


def test_data_changing_while_hashed_is_marked_unstable(tmp_path: Path) -> None:
    growing = tmp_path / "growing.bin"
    growing.write_bytes(os.urandom(1024) * 32 * 1024)  # 32 MiB
    stop = threading.Event()

    def append() -> None:
        with growing.open("ab") as handle:
            while not stop.is_set():
                handle.write(b"x" * 4096)
                handle.flush()
                time.sleep(0.001)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        item = hash_path(str(growing), tmp_path, HashOptions())
    finally:
        stop.set()
        writer.join()
    assert item.unstable is True
    assert item.error == "data changed while it was being hashed"


def test_a_cache_file_that_is_not_an_object_counts_as_empty(tmp_path: Path) -> None:
    from envsnap.capturing.datacache import DigestCache

    path = tmp_path / "cache.json"
    path.write_text("[1, 2]")
    assert DigestCache(path).get("anything") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_cache_that_is_a_named_pipe_is_ignored_without_waiting(tmp_path: Path) -> None:
    """Reading a FIFO blocks until a writer comes: the cache must not be read that way."""
    data = _tree(tmp_path)
    cache_file = tmp_path / "c.json"
    os.mkfifo(cache_file)
    cache = DigestCache(cache_file)  # returns at once: nothing is read from the pipe
    item = hash_path(str(data), tmp_path, HashOptions(cache=cache))
    assert cache.hits == 0 and item.root is not None


def test_a_cache_over_its_size_cap_or_nested_too_deep_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envsnap.capturing import datacache

    data = _tree(tmp_path)
    cache_file = tmp_path / "c.json"
    first = DigestCache(cache_file)
    hash_path(str(data), tmp_path, HashOptions(cache=first))
    first.save()
    assert DigestCache(cache_file).get(next(iter(first._used))) is not None
    monkeypatch.setattr(datacache, "CACHE_MAX_BYTES", cache_file.stat().st_size - 1)
    assert DigestCache(cache_file)._old == {}
    monkeypatch.undo()
    cache_file.write_bytes(b"[" * 200_000 + b"]" * 200_000)
    assert DigestCache(cache_file)._old == {}
