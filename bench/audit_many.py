"""`envsnap audit` over many manifests: wall time for N files on 2 worker processes.

Writes N manifests to a temporary directory: the full test fixture (about 40 KB) and, for
every advisory, its triggering manifest and its near miss (tests/fixtures/audit/cases.json),
cycled, each with its own run label so no two files are equal. Then times, in alternating
rounds on the same worker count:

- peer: read and parse every file, nothing else (the floor any JSON-reading engine pays),
  with the parser the audit uses (orjson when installed, else the json module);
- scan: `envsnap.audit.many.scan_many`, every verdict consumed (the audit itself: which
  advisories apply to which manifest, with the facts that matched);
- audit: `audit_many`, which also builds the full findings in this process and serialises
  them as JSON (what `envsnap audit DIR -f json` does), in the first round only, with --full.

Each line gives the median wall time and the CPU time of the bench and its workers: on a
shared machine the wall time grows with everyone else's load, the CPU time hardly does, and
CPU / jobs is what the wall time would be on otherwise idle cores.

    python bench/audit_many.py [--count 100000] [--rounds 3] [--jobs 2] [--full]

Target: the scan's median at most 60 s for 100,000 manifests on 2 cores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
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
    from tests.helpers.advisories import CASES, FULL, near_miss, trigger

    return [FULL] + [trigger(i) for i in sorted(CASES)] + [near_miss(i) for i in sorted(CASES)]


def write(directory: Path, count: int) -> None:
    variants = _variants()
    for index in range(count):
        sub = directory / f"{index // 1000:04d}"
        sub.mkdir(exist_ok=True)
        doc = variants[index % len(variants)]
        doc["run"]["label"] = f"run-{index:06d}"
        (sub / f"run-{index:06d}.json").write_text(json.dumps(doc), "utf-8")


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool's workers, once joined):
    unlike wall time it hardly depends on what else the machine is running."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(run: Any) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result) of `run()`."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = run()
    return time.perf_counter() - wall, cpu_seconds() - cpu, result


def _parse(paths: list[str]) -> int:
    for path in paths:
        with open(path, "rb") as handle:
            loads_object(handle.read())
    return len(paths)


def peer(directory: Path, jobs: int) -> int:
    paths = expand([str(directory)])
    chunks = iter(lambda: list(itertools.islice(paths, BATCH)), [])
    with ProcessPoolExecutor(jobs) as pool:
        return sum(pool.map(_parse, chunks))


def scan(directory: Path, jobs: int) -> int:
    return sum(len(v.hits) for v in scan_many(expand([str(directory)]), jobs=jobs))


def full(directory: Path, jobs: int) -> int:
    return sum(len(r.model_dump_json()) for r in audit_many(expand([str(directory)]), jobs=jobs))


def _line(name: str, runs: list[tuple[float, float, Any]], jobs: int) -> str:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    return (
        f"{name}: median wall {wall:.1f} s, CPU {cpu:.1f} s "
        f"(CPU / {jobs} cores = {cpu / jobs:.1f} s if nothing else ran)"
    )


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
            peers.append(timed(lambda: peer(directory, args.jobs)))
            scans.append(timed(lambda: scan(directory, args.jobs)))
            if args.full and round_ == 0:
                fulls.append(timed(lambda: full(directory, args.jobs)))
        load_after = os.getloadavg()[0]
    median = statistics.median(r[0] for r in scans)
    ratio = median / statistics.median(r[0] for r in peers)
    cpu_ratio = statistics.median(r[1] for r in scans) / statistics.median(r[1] for r in peers)
    print(f"manifests: {args.count}, jobs: {args.jobs}, rounds: {args.rounds}, parser: {engine()}")
    print(f"load average (1 min) before/after: {load_before:.1f}/{load_after:.1f}")
    print(_line("peer (read + parse only)", peers, args.jobs))
    print(_line(f"scan ({scans[0][2]} hits)", scans, args.jobs))
    print(f"scan / peer: wall {ratio:.2f}, CPU {cpu_ratio:.2f}")
    if fulls:
        print(_line("audit with full findings as JSON (1 round)", fulls, args.jobs))
    print(f"target: scan <= {TARGET_S * args.count / 100_000:.1f} s wall for {args.count}")
    return 0 if median <= TARGET_S * args.count / 100_000 else 1


if __name__ == "__main__":
    raise SystemExit(main())
