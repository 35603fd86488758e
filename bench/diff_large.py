"""`envsnap diff` on two large manifests (200k packages each) against a plain-JSON floor.

The pair is the full fixture manifest with N synthetic packages; side B changes 1% of the
versions. Two programs run as fresh processes, interleaved round by round so machine load hits
both alike:
- envsnap: `python -m envsnap diff A B -f json -o OUT` (strict read, validation, ranking);
- floor: a plain `json.load` of both files and a dict comparison of their packages, the least
  any tool must do to answer the question.
Wall time is measured around spawn and reap; CPU time (user + system) and peak RSS are the
child's own (wait4). On a shared machine wall time grows with the load, CPU time much less: the
load average is printed with the figures.

    python bench/diff_large.py [--runs 5] [--packages 200000]

Targets: envsnap's median wall time <= 5 s and median peak RSS <= 500 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "tests" / "fixtures" / "manifests" / "full.json"
WALL_TARGET_S = 5.0
RSS_TARGET_MIB = 500.0
FLOOR = (
    "import json, sys\n"
    "a = json.load(open(sys.argv[1], 'rb'))\n"
    "b = json.load(open(sys.argv[2], 'rb'))\n"
    "pa, pb = a['packages']['installed'], b['packages']['installed']\n"
    "changed = [k for k in pa.keys() | pb.keys() if pa.get(k) != pb.get(k)]\n"
    "print(len(changed))\n"
)


def write_pair(directory: Path, packages: int) -> tuple[Path, Path]:
    """Two sealed manifests that differ in 1% of their package versions."""
    from envsnap.manifest.canonical import pretty_text
    from envsnap.manifest.model import manifest_from_document

    paths = []
    for side in ("a", "b"):
        document = json.loads(FULL.read_text(encoding="utf-8"))
        installed = document["packages"]["installed"]
        for i in range(packages - len(installed)):
            name = f"pkg-{i:06d}"
            version = "1.1" if side == "b" and i % 100 == 0 else "1.0"
            installed[name] = {
                "name": name,
                "version": version,
                "installer": "pip",
                "source": "index",
                "url": None,
                "vcs": None,
                "commit": None,
                "shadowed": [],
            }
        sealed = manifest_from_document(document, side).sealed().to_document()
        path = directory / f"{side}.json"
        path.write_text(pretty_text(sealed), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one run; exit 0 or 1 (differences found)
    is success."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({code}): {child.stderr.read()!r}")  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--packages", type=int, default=200_000)
    parser.add_argument("--write-pair", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_pair:
        write_pair(Path(args.write_pair), args.packages)
        return
    with tempfile.TemporaryDirectory() as tmp:
        # Written by a child process: a child forked from a parent holding the documents
        # would count the parent's pages in its own peak RSS.
        subprocess.run(
            [sys.executable, __file__, "--packages", str(args.packages), "--write-pair", tmp],
            check=True,
        )
        a, b = Path(tmp) / "a.json", Path(tmp) / "b.json"
        size_mib = a.stat().st_size / 2**20
        programs = {
            "envsnap": [
                sys.executable,
                "-m",
                "envsnap",
                "diff",
                str(a),
                str(b),
                "-f",
                "json",
                "-o",
                str(Path(tmp) / "report.json"),
            ],
            "floor": [sys.executable, "-c", FLOOR, str(a), str(b)],
        }
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in programs}
        loads = []
        for argv in programs.values():  # warm-up: file cache, bytecode caches
            run_once(argv)
        for round_ in range(args.runs):
            order = list(programs) if round_ % 2 == 0 else list(reversed(programs))
            for name in order:
                results[name].append(run_once(programs[name]))
                loads.append(os.getloadavg()[0])
    print(f"two manifests of {args.packages} packages ({size_mib:.1f} MiB each), {args.runs} runs")
    print(
        f"load average {statistics.median(loads):.1f} (median of the runs) on {os.cpu_count()} CPUs"
    )
    medians = {}
    for name, runs in results.items():
        wall, cpu, rss = (statistics.median(run[i] for run in runs) for i in range(3))
        medians[name] = (wall, cpu, rss)
        print(f"{name:8s} wall {wall:6.2f} s   CPU {cpu:6.2f} s   peak RSS {rss:7.1f} MiB")
    wall, cpu, rss = medians["envsnap"]
    floor_wall, floor_cpu, floor_rss = medians["floor"]
    print(
        f"ratio    wall {wall / floor_wall:6.2f} x   CPU {cpu / floor_cpu:6.2f} x"
        f"   peak RSS {rss / floor_rss:7.2f} x (envsnap / floor)"
    )
    ok = wall <= WALL_TARGET_S and rss <= RSS_TARGET_MIB
    print(
        f"target   wall <= {WALL_TARGET_S} s, peak RSS <= {RSS_TARGET_MIB:.0f} MiB: {'met' if ok else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
