"""`envsnap audit` over many manifests: wall time for N files on 2 worker processes.

Writes N manifests to a temporary directory: the full test fixture (about 40 KB) and, for
every advisory, its triggering manifest and its near miss (tests/fixtures/audit/cases.json),
cycled, each with its own run label so no two files are equal. Then times, in alternating
rounds on the same worker count:

- peer: read and parse every file, nothing else (the floor any JSON-reading engine pays),
  with the parser the audit uses (orjson when installed, else the json module);
- scan: `envsnap.audit.many.scan_many`, every verdict consumed (the audit itself: which
  advisories apply to which manifest, with the facts that matched);
- audit: `audit_many`, which also builds the full findings in this process (what the CLI
  renders), timed in the first round only when --full is given.

    python bench/audit_many.py [--count 100000] [--rounds 3] [--jobs 2] [--full]

Target: the scan's median at most 60 s for 100,000 manifests on 2 cores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envsnap.audit.loads import engine, loads_object  # noqa: E402
from envsnap.audit.many import BATCH, audit_many, scan_many  # noqa: E402
from envsnap.audit.sources import expand  # noqa: E402

TARGET_S = 60.0


def _variants() -> list[dict[str, Any]]:
    from tests.advisory_cases import CASES, FULL, near_miss, trigger

    return [FULL] + [trigger(i) for i in sorted(CASES)] + [near_miss(i) for i in sorted(CASES)]


def write(directory: Path, count: int) -> None:
    variants = _variants()
    for index in range(count):
        sub = directory / f"{index // 1000:04d}"
        sub.mkdir(exist_ok=True)
        doc = variants[index % len(variants)]
        doc["run"]["label"] = f"run-{index:06d}"
        (sub / f"run-{index:06d}.json").write_text(json.dumps(doc), "utf-8")


def _parse(paths: list[str]) -> int:
    for path in paths:
        with open(path, "rb") as handle:
            loads_object(handle.read())
    return len(paths)


def peer(directory: Path, jobs: int) -> float:
    start = time.perf_counter()
    paths = expand([str(directory)])
    chunks = iter(lambda: list(itertools.islice(paths, BATCH)), [])
    with ProcessPoolExecutor(jobs) as pool:
        sum(pool.map(_parse, chunks))
    return time.perf_counter() - start


def scan(directory: Path, jobs: int) -> tuple[float, int]:
    start = time.perf_counter()
    hits = sum(len(v.hits) for v in scan_many(expand([str(directory)]), jobs=jobs))
    return time.perf_counter() - start, hits


def full(directory: Path, jobs: int) -> float:
    start = time.perf_counter()
    for result in audit_many(expand([str(directory)]), jobs=jobs):
        result.model_dump_json()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="also time full findings as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write(directory, args.count)
        load_before = os.getloadavg()[0]
        peers, scans, fulls = [], [], []
        for round_ in range(args.rounds):
            peers.append(peer(directory, args.jobs))
            seconds, hits = scan(directory, args.jobs)
            scans.append(seconds)
            if args.full and round_ == 0:
                fulls.append(full(directory, args.jobs))
        load_after = os.getloadavg()[0]
    p, s = statistics.median(peers), statistics.median(scans)
    print(f"manifests: {args.count}, jobs: {args.jobs}, rounds: {args.rounds}, parser: {engine()}")
    print(f"load average (1 min) before/after: {load_before:.1f}/{load_after:.1f}")
    print(f"peer (read + parse only) median: {p:.1f} s")
    print(f"scan median: {s:.1f} s, {hits} hits; ratio to peer: {s / p:.2f}")
    if fulls:
        print(f"audit with full findings as JSON (1 round): {fulls[0]:.1f} s")
    print(f"target: scan <= {TARGET_S * args.count / 100_000:.1f} s for {args.count}")
    return 0 if s <= TARGET_S * args.count / 100_000 else 1


if __name__ == "__main__":
    raise SystemExit(main())
