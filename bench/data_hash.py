"""Data hashing throughput: envsnap full mode vs `sha256sum`, on the same files, interleaved.

Creates ~1 GB in 1,000 files and one 1 GB file under a temp directory (deleted afterwards),
then for several rounds runs `sha256sum` and envsnap's hasher alternately on each set, and
prints medians and ratios. Also times, round by round, a first capture of the 1,000 files and
a re-capture through the persistent cache (loading the cache included), in wall and CPU time,
against its floor (reading the cache file and one stat per file, in the same rounds), and prints
peak RSS to show memory stays bounded.

    python bench/data_hash.py [--files 1000] [--file-mib 1] [--big-mib 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from envsnap.capturing.datacache import DigestCache
from envsnap.capturing.datahash import HashOptions, default_workers, hash_path

MIB = 1024 * 1024


def _write(path: Path, mib: int) -> None:
    block = os.urandom(MIB)
    with path.open("wb") as handle:
        for index in range(mib):
            handle.write(block[index % 251 :] + block[: index % 251])


def _time(fn: object) -> float:
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started


def _time_both(fn: object) -> tuple[float, float]:
    """(wall s, CPU s of this process, every thread): CPU time barely moves with machine load."""
    started, cpu = time.perf_counter(), time.process_time()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started, time.process_time() - cpu


def _recapture(cache_file: Path, data: Path, root: Path) -> int:
    """Hash `data` through the cache, loading the cache file as a new capture would."""
    cache = DigestCache(cache_file)
    hash_path(str(data), root, HashOptions(cache=cache))
    return cache.hits


def _floor(cache_file: Path, data: Path) -> None:
    """What any cached re-capture must do: read the cache and stat every file once."""
    json.loads(cache_file.read_bytes())
    with os.scandir(data) as listing:
        for entry in listing:
            os.stat(entry.path)


def _sha256sum(paths: list[str]) -> None:
    subprocess.run(["sha256sum", *paths], check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--file-mib", type=int, default=1)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="envsnap-bench-"))
    try:
        many, big = root / "many", root / "big.bin"
        many.mkdir()
        for index in range(args.files):
            _write(many / f"part-{index:05d}.bin", args.file_mib)
        _write(big, args.big_mib)
        old = time.time() - 3600  # outside the cache's racy window, as real data would be
        for path in [*many.iterdir(), big]:
            os.utime(path, (old, old))
        many_paths = sorted(str(p) for p in many.iterdir())
        results: dict[str, list[float]] = {
            k: [] for k in ("sum_many", "env_many", "sum_big", "env_big")
        }
        options = HashOptions()
        _sha256sum([str(big)])  # warm the page cache once for both tools
        _sha256sum(many_paths)
        for _ in range(args.rounds):
            results["sum_many"].append(_time(lambda: _sha256sum(many_paths)))
            results["env_many"].append(_time(lambda: hash_path(str(many), root, options)))
            results["sum_big"].append(_time(lambda: _sha256sum([str(big)])))
            results["env_big"].append(_time(lambda: hash_path(str(big), root, options)))
        cache_file = root / "cache.json"
        cold: list[tuple[float, float]] = []
        warm: list[tuple[float, float]] = []
        floor: list[tuple[float, float]] = []
        hits: list[int] = []
        for _ in range(args.rounds):  # first capture, then the re-capture, each round
            cache_file.unlink(missing_ok=True)
            first = DigestCache(cache_file)
            cold.append(
                _time_both(lambda c=first: hash_path(str(many), root, HashOptions(cache=c)))
            )
            first.save()
            floor.append(_time_both(lambda: _floor(cache_file, many)))
            warm.append(_time_both(lambda: hits.append(_recapture(cache_file, many, root))))
        assert hits == [args.files] * args.rounds, hits
        median = {k: statistics.median(v) for k, v in results.items()}
        many_gb = args.files * args.file_mib * MIB / 1e9
        big_gb = args.big_mib * MIB / 1e9
        print(f"workers={default_workers()} rounds={args.rounds} (medians)")
        for label, size, ours, theirs in (
            (f"{args.files} files", many_gb, median["env_many"], median["sum_many"]),
            ("1 file", big_gb, median["env_big"], median["sum_big"]),
        ):
            print(
                f"{label:>12}: {size:.2f} GB  sha256sum {size / theirs:.2f} GB/s  "
                f"envsnap {size / ours:.2f} GB/s  ratio {theirs / ours:.2f}x"
            )
        cold_wall, cold_cpu = (statistics.median(x) for x in zip(*cold, strict=True))
        warm_wall, warm_cpu = (statistics.median(x) for x in zip(*warm, strict=True))
        print(
            f"re-capture of unchanged data ({args.files} files): first {cold_wall:.3f} s wall / "
            f"{cold_cpu:.3f} s CPU, cached {warm_wall:.4f} s wall / {warm_cpu:.4f} s CPU: "
            f"{cold_wall / warm_wall:.0f}x faster by wall time, {cold_cpu / warm_cpu:.0f}x by CPU"
        )
        floor_wall, floor_cpu = (statistics.median(x) for x in zip(*floor, strict=True))
        print(
            f"floor (read the cache, stat each file): {floor_wall * 1e3:.1f} ms wall / "
            f"{floor_cpu * 1e3:.1f} ms CPU; cached re-capture {warm_wall * 1e3:.1f} ms wall / "
            f"{warm_cpu * 1e3:.1f} ms CPU ({warm_wall / floor_wall:.1f}x the floor)"
        )
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process: {peak_mib:.0f} MiB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
