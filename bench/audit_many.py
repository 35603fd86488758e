"""`envsnap audit` over many manifests: wall time for N files on 2 worker processes.

Writes N manifests (the full test fixture, about 60 KB each, in three variants that trigger
different advisories) to a temporary directory, then times, in alternating rounds:

- peer: reading and parsing every file with the standard json module on the same 2 processes
  (the floor any JSON-reading engine pays);
- audit: `envsnap.audit.many.audit_many` over the directory with jobs=2, every result consumed.

    python bench/audit_many.py [--count 100000] [--rounds 3] [--jobs 2]

Target: the audit's median at most 60 s for 100,000 manifests on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envsnap.audit.many import audit_many  # noqa: E402
from envsnap.audit.sources import expand  # noqa: E402

TARGET_S = 60.0


def _variants() -> list[bytes]:
    from tests.advisory_cases import FULL, trigger

    docs: list[dict[str, Any]] = [FULL, trigger("ENVSNAP-2024-0001"), trigger("ENVSNAP-2024-0009")]
    return [json.dumps(doc).encode() for doc in docs]


def write(directory: Path, count: int) -> None:
    variants = _variants()
    for index in range(count):
        sub = directory / f"{index // 1000:04d}"
        sub.mkdir(exist_ok=True)
        (sub / f"run-{index:06d}.json").write_bytes(variants[index % len(variants)])


def _parse(paths: list[str]) -> int:
    for path in paths:
        with open(path, "rb") as handle:
            json.loads(handle.read())
    return len(paths)


def peer(directory: Path, jobs: int) -> float:
    paths = list(expand([str(directory)]))
    chunks = [paths[i : i + 128] for i in range(0, len(paths), 128)]
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        sum(pool.map(_parse, chunks))
    return time.perf_counter() - start


def audit(directory: Path, jobs: int) -> tuple[float, int]:
    start = time.perf_counter()
    findings = sum(len(r.findings) for r in audit_many(expand([str(directory)]), jobs=jobs))
    return time.perf_counter() - start, findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write(directory, args.count)
        peers, audits = [], []
        for _ in range(args.rounds):
            peers.append(peer(directory, args.jobs))
            seconds, findings = audit(directory, args.jobs)
            audits.append(seconds)
    median = statistics.median(audits)
    print(
        f"manifests: {args.count}, jobs: {args.jobs}, rounds: {args.rounds}, findings: {findings}"
    )
    print(f"peer (parse only) median: {statistics.median(peers):.1f} s")
    print(f"audit median: {median:.1f} s (target <= {TARGET_S:.0f} s for 100,000)")
    return 0 if median <= TARGET_S * args.count / 100_000 else 1


if __name__ == "__main__":
    raise SystemExit(main())
