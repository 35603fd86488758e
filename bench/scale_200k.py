"""Every manifest-reading command on two 200k-package manifests, against a real ~170-package pair.

Both pairs start from real `envsnap capture` documents of this environment (two captures, so
times, durations and ids differ as between two runs). The large pair adds synthetic packages
shaped like the captured ones until each side holds N; side B bumps 1% of the versions, removes
300 packages and adds 300. Each side is sealed again with the project's own code
(`Manifest.sealed()`), so `envsnap verify` accepts both. The small pair is the two captures as
they are, with a few version bumps in B: the peer, run in the same rounds.

Each command runs as a fresh CLI process with stdout to a file, small and large interleaved,
round by round. Recorded per run: wall time (spawn to reap), CPU time (user + system of the
process and the workers it reaped, from `wait4`), and peak memory: the larger of the process's
own peak RSS (`wait4`) and the peak sum of PSS over its process tree, polled from
/proc/PID/smaps_rollup (so `audit`'s workers count, and pages they share are counted once). The
floor is a bare interpreter that `json.load`s both files and compares their package maps.

    python bench/scale_200k.py [--runs 3] [--packages 200000] [--only diff-json,show]

Target: every command's median at most 5 s wall and its peak at most 500 MB (10^6 bytes).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

WALL_TARGET_S = 5.0
PEAK_TARGET_MB = 500.0
BUMPED_SHARE = 100  # one package in this many gets a new version in B
REMOVED = ADDED = 300
SMALL_BUMPS = 5
POLL_S = 0.01
FLOOR = (
    "import json, sys\n"
    "a = json.load(open(sys.argv[1], 'rb'))\n"
    "b = json.load(open(sys.argv[2], 'rb'))\n"
    "pa, pb = a['packages']['installed'], b['packages']['installed']\n"
    "print(sum(pa.get(k) != pb.get(k) for k in pa.keys() | pb.keys()))\n"
)


def commands(a: Path, b: Path, out: Path) -> dict[str, list[str]]:
    """The argv of every command measured, by name (one pair's paths)."""
    envsnap = [sys.executable, "-m", "envsnap"]
    diff = [*envsnap, "diff", str(a), str(b)]
    return {
        "diff table": [*diff, "-f", "table"],
        "diff json": [*diff, "-f", "json"],
        "diff markdown": [*diff, "-f", "markdown"],
        "export cyclonedx": [*envsnap, "export", "cyclonedx", str(b)],
        "export requirements": [*envsnap, "export", "requirements", str(b)],
        "export conda": [*envsnap, "export", "conda", str(b)],
        "show": [*envsnap, "show", str(b)],
        "show --packages": [*envsnap, "show", "--packages", str(b)],
        "verify": [*envsnap, "verify", str(b)],
        "audit": [*envsnap, "audit", str(b), "-j", "2"],
        "floor (json.load)": [sys.executable, "-c", FLOOR, str(a), str(b)],
    }


# --- building the pairs (in a child process: see main) ---------------------------------------


def _capture(path: Path, cwd: Path) -> dict[str, Any]:
    subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "-o", str(path)],
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _bump(version: str | None) -> str:
    return f"{version or '0'}.post1"


def _synthetic(template: dict[str, Any], index: int, rng: random.Random) -> dict[str, Any]:
    """A package entry shaped like a captured one, with a varied name and version."""
    name = f"{rng.choice(('py', 'lib', 'ml', 'data', 'torch'))}-pkg-{index:06d}"
    version = f"{rng.randrange(30)}.{rng.randrange(40)}.{rng.randrange(10)}"
    return {**copy.deepcopy(template), "name": name, "version": version}


def _grow(document: dict[str, Any], packages: int, rng: random.Random) -> None:
    installed = document["packages"]["installed"]
    template = next(iter(installed.values()))
    for index in range(packages - len(installed)):
        entry = _synthetic(template, index, rng)
        installed[entry["name"]] = entry


def _differ(a: dict[str, Any], b: dict[str, Any], rng: random.Random, big: bool) -> None:
    """B's packages: A's, less some, plus some, with some versions bumped."""
    installed = {name: copy.deepcopy(entry) for name, entry in a["packages"]["installed"].items()}
    names = sorted(installed)
    if big:
        for name in rng.sample(names, REMOVED):
            del installed[name]
        template = installed[names[0]] if names[0] in installed else next(iter(installed.values()))
        for index in range(ADDED):
            entry = _synthetic(template, 900_000 + index, rng)
            installed[entry["name"]] = entry
        bumped = rng.sample(sorted(installed), len(installed) // BUMPED_SHARE)
    else:
        bumped = rng.sample(names, SMALL_BUMPS)
    for name in bumped:
        installed[name]["version"] = _bump(installed[name]["version"])
    b["packages"]["installed"] = dict(sorted(installed.items()))


def _seal_and_write(document: dict[str, Any], path: Path) -> None:
    from envsnap.manifest.canonical import pretty_text
    from envsnap.manifest.model import manifest_from_document

    sealed = manifest_from_document(document, path.name).sealed().to_document()
    path.write_text(pretty_text(sealed), encoding="utf-8")


def write_pairs(work: Path, packages: int) -> None:
    """small-{a,b}.json and large-{a,b}.json in `work`, sealed."""
    rng = random.Random(200_000)
    capture_a = _capture(work / "capture-a.json", work)
    capture_b = _capture(work / "capture-b.json", work)
    _differ(capture_a, capture_b, rng, big=False)
    _seal_and_write(capture_a, work / "small-a.json")
    _seal_and_write(capture_b, work / "small-b.json")
    large_a, large_b = copy.deepcopy(capture_a), copy.deepcopy(capture_b)
    _grow(large_a, packages, rng)
    _differ(large_a, large_b, rng, big=True)
    _seal_and_write(large_a, work / "large-a.json")
    _seal_and_write(large_b, work / "large-b.json")


# --- measuring ----------------------------------------------------------------------------------


def _tree_pss_kib(root: int) -> int:
    """The summed PSS of `root` and its descendants, KiB (0 once they are gone)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
    return total


class _PeakPoller(threading.Thread):
    """Polls a process tree's PSS until told to stop; `peak_kib` is the largest sum seen."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak_kib = pid, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(POLL_S):
            self.peak_kib = max(self.peak_kib, _tree_pss_kib(self.pid))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def run_once(argv: list[str], stdout: Path, timeout: float) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB) of one run; exit 0 or 1 (differences, findings) is success.

    A run still going after `timeout` seconds is killed, with its workers, and its wall time
    is infinite."""
    with stdout.open("wb") as sink:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, start_new_session=True)
        poller = _PeakPoller(child.pid)
        poller.start()
        killer = threading.Timer(timeout, _kill_group, (child.pid,))
        killer.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        killer.cancel()
        poller.done.set()
        poller.join()
    code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGKILL and wall >= timeout:
        return float("inf"), usage.ru_utime + usage.ru_stime, poller.peak_kib * 1024 / 1e6
    if code not in (0, 1):
        error = child.stderr.read().decode(errors="replace") if child.stderr else ""
        raise SystemExit(f"{' '.join(argv[2:])} failed ({code}): {error[-2000:]}")
    if child.stderr:
        child.stderr.close()
    peak_kib = max(usage.ru_maxrss, poller.peak_kib)
    return wall, usage.ru_utime + usage.ru_stime, peak_kib * 1024 / 1e6


def _median(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        max(r[2] for r in runs),  # the worst peak, not the median: memory is a limit
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--packages", type=int, default=200_000)
    parser.add_argument("--only", help="comma-separated command names (default: all)")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds before a run is killed"
    )
    parser.add_argument("--keep", metavar="DIR", help="write the pairs here and keep them")
    parser.add_argument("--write-pairs", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_pairs:
        write_pairs(Path(args.write_pairs), args.packages)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        if not (work / "large-b.json").exists():
            # A child builds the pairs: a process forked from one that held 2 x 200k entries
            # would count the parent's pages in its own peak RSS.
            subprocess.run(
                [sys.executable, __file__, "--packages", str(args.packages), "--write-pairs", work],
                check=True,
            )
        measure(work, args.runs, args.only.split(",") if args.only else None, args.timeout)


def measure(work: Path, runs: int, only: list[str] | None, timeout: float) -> None:
    pairs = {
        size: commands(work / f"{size}-a.json", work / f"{size}-b.json", work)
        for size in ("small", "large")
    }
    names = [name for name in pairs["large"] if only is None or name in only]
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    sizes: dict[tuple[str, str], int] = {}
    loads = []
    for round_ in range(runs + 1):  # round 0 warms the page and bytecode caches
        for name in names:
            order = ("small", "large") if round_ % 2 else ("large", "small")
            for size in order:
                out = work / f"out-{size}.txt"
                measured = run_once(pairs[size][name], out, timeout)
                sizes[size, name] = out.stat().st_size
                if round_:
                    results.setdefault((size, name), []).append(measured)
                    loads.append(os.getloadavg()[0])
    large = json.loads((work / "large-a.json").read_text(encoding="utf-8"))
    count = len(large["packages"]["installed"])
    small = len(json.loads((work / "small-a.json").read_text())["packages"]["installed"])
    mib = (work / "large-a.json").stat().st_size / 2**20
    print(f"large pair: {count} packages ({mib:.1f} MiB per file); small pair: {small} packages")
    print(
        f"{runs} interleaved runs; load average {statistics.median(loads):.1f} "
        f"(median) on {os.cpu_count()} CPUs; Python {sys.version.split()[0]}"
    )
    header = (
        f"{'command':22s} {'small s':>8s} {'large s':>8s} {'CPU s':>7s} "
        f"{'small MB':>9s} {'large MB':>9s} {'output':>10s}  verdict"
    )
    print(header)
    failed = 0
    for name in names:
        s_wall, _, s_peak = _median(results["small", name])
        wall, cpu, peak = _median(results["large", name])
        ok = wall <= WALL_TARGET_S and peak <= PEAK_TARGET_MB
        failed += not ok and not name.startswith("floor")
        print(
            f"{name:22s} {s_wall:8.2f} {wall:8.2f} {cpu:7.2f} {s_peak:9.1f} {peak:9.1f} "
            f"{_size(sizes['large', name]):>10s}  {'PASS' if ok else 'FAIL'}"
        )
    print(
        f"target: median wall <= {WALL_TARGET_S} s and peak <= {PEAK_TARGET_MB:.0f} MB "
        f"for every command: {'met' if not failed else f'{failed} command(s) FAIL'}"
    )


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


if __name__ == "__main__":
    main()
