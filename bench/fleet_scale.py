"""How `envsnap fleet` scales: 100, 1,000 and 5,000 manifests (3 planted odd ones each).

Run: python bench/fleet_scale.py [COUNTS...]
Prints, per count: wall and CPU time of the fleet command's work run in-process (file reading,
validation, grouping, ranking), and the classes found. CPU time is the figure to compare
on a shared machine.
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from envsnap.capturing.api import capture
from envsnap.diff.fleet import fleet
from envsnap.manifest.canonical import digest_of


def member(base: dict[str, Any], index: int) -> dict[str, Any]:
    document = copy.deepcopy(base)
    document["run"]["pid"] = 10_000 + index
    document["system"]["hostname"] = f"node-{index:05d}"
    document["env"]["variables"]["RANK"] = str(index)
    if index in (7, 50, 99):
        document["env"]["variables"]["OMP_NUM_THREADS"] = str(index)
    document["digest"] = digest_of(document)
    return document


def main(counts: list[int]) -> None:
    base = capture(only=["python", "packages", "system", "env"]).to_document()
    size = len(json.dumps(base))
    print(f"manifest size: {size / 1024:.1f} KiB, {len(base['packages']['installed'])} packages")
    print(f"{'manifests':>10} {'wall s':>8} {'cpu s':>8} {'classes':>8} {'odd':>5}")
    for count in counts:
        with tempfile.TemporaryDirectory() as tmp:
            for index in range(count):
                (Path(tmp) / f"m{index:05d}.json").write_text(json.dumps(member(base, index)))
            started, cpu = time.perf_counter(), time.process_time()
            report = fleet([tmp])
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"{count:>10} {elapsed:>8.2f} {cpu:>8.2f} "
            f"{len(report.classes):>8} {len(report.odd_ones_out):>5}"
        )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [100, 1000, 5000])
