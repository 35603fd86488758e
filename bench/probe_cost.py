"""What the numerics probe (`envsnap.probe.run_probe`) costs, against a plain matmul loop.

1. In-process, torch already imported: the first call, then N warm calls (target <= 50 ms on
   the CPU, <= 200 ms on a GPU), each followed by the peer: one 256x256 fp32 matmul per probe op
   (21 of them), so drift in machine load hits both alike. Prints medians and their ratio, and
   the peak RSS each call added (Linux /proc).
2. Fresh subprocesses: the first and second call of a process that has just imported torch, and
   the peak RSS the probe added there.
3. --profile: each op's own cost (the probe run with that op alone, less the empty suite), most
   expensive first, so you can see what to shrink.

    python bench/probe_cost.py [--runs 20] [--processes 5] [--threads 0] [--profile]

On a loaded 2-core machine the thread count matters more than the shapes: at 2 threads every
parallel region waits for a core, so compare --threads 1 and --threads 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def memory_mb() -> dict[str, float]:
    """Resident set now, its peak since the last reset, and the anonymous (heap) part, in MB.

    Linux /proc: the first call's growth is mostly file-backed pages of libtorch, MKL and oneDNN
    code run for the first time in the process, not probe data; RssAnon shows the data part.
    """
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def reset_peak() -> None:
    """Reset VmHWM to the current RSS, so the next reading is this probe's peak alone."""
    Path("/proc/self/clear_refs").write_text("5")


def measured(fn: Any) -> dict[str, float]:
    """fn's wall time, peak RSS above the RSS before, and heap growth."""
    reset_peak()
    before = memory_mb()
    ms = timed(fn)
    after = memory_mb()
    return {
        "ms": ms,
        "peak": after["VmHWM"] - before["VmRSS"],
        "anon": after["RssAnon"] - before["RssAnon"],
    }


def timed(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def child(threads: int) -> None:
    """One fresh process: first and second call, each with the peak RSS it added."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    from envsnap.probe import run_probe

    print(json.dumps({"first": measured(run_probe), "second": measured(run_probe)}))


def in_process(runs: int) -> dict[str, Any]:
    import torch

    from envsnap.probe import run_probe, suite

    a = torch.rand(256, 256)
    b = torch.rand(256, 256)

    def peer() -> None:
        for _ in suite.OPS:
            a @ b

    first = measured(run_probe)
    probe_ms: list[float] = []
    peer_ms: list[float] = []
    warm_peak: list[float] = []
    for _ in range(runs):  # interleaved
        warm = measured(run_probe)
        probe_ms.append(warm["ms"])
        warm_peak.append(warm["peak"])
        peer_ms.append(timed(peer))
    device_ms = {
        name: entry["elapsed_ms"]
        for name, entry in run_probe()["devices"].items()  # type: ignore[attr-defined]
    }
    return {
        "first": first,
        "probe": probe_ms,
        "peer": peer_ms,
        "warm_peak": statistics.median(warm_peak),
        "devices": device_ms,
    }


def profile(rounds: int) -> list[tuple[str, float]]:
    """Each op's median cost over `rounds`: the probe with that op alone, less the empty suite."""
    from envsnap.probe import run_probe, suite

    ops = suite.OPS
    try:
        suite.OPS = ()
        run_probe()
        empty = statistics.median(timed(run_probe) for _ in range(rounds))
        costs = []
        for op in ops:
            suite.OPS = (op,)
            run_probe()
            costs.append((op.name, statistics.median(timed(run_probe) for _ in range(rounds))))
    finally:
        suite.OPS = ops
    return sorted(((name, ms - empty) for name, ms in costs), key=lambda item: -item[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="warm in-process calls")
    parser.add_argument("--processes", type=int, default=5, help="fresh subprocesses (0: none)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    parser.add_argument("--profile", action="store_true", help="per-op costs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.threads)
        return
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    print(
        f"python {sys.version.split()[0]}, torch {torch.__version__}, {os.cpu_count()} CPUs, "
        f"threads {torch.get_num_threads()}, load {os.getloadavg()[0]:.2f}"
    )

    result = in_process(args.runs)
    probe, peer = statistics.median(result["probe"]), statistics.median(result["peer"])
    first = result["first"]
    print(
        f"in-process, {args.runs} warm calls: median {probe:.1f} ms (min {min(result['probe']):.1f}, "
        f"max {max(result['probe']):.1f}), peak RSS +{result['warm_peak']:.1f} MB; "
        f"first call {first['ms']:.1f} ms, peak RSS +{first['peak']:.1f} MB (heap +{first['anon']:.1f})"
    )
    print(
        f"peer ({len(result['peer'])} x 21 matmuls 256x256, interleaved): median {peer:.2f} ms; "
        f"ratio probe / peer {probe / peer:.1f}"
    )
    print("  per device (ms): " + ", ".join(f"{k} {v}" for k, v in result["devices"].items()))

    if args.processes > 0:
        script = Path(__file__).resolve()
        argv = [sys.executable, str(script), "--child", "--threads", str(args.threads)]
        rows = [
            json.loads(
                subprocess.run(argv, capture_output=True, text=True, check=True, timeout=600).stdout
            )
            for _ in range(args.processes)
        ]

        def median(call: str, key: str) -> float:
            return statistics.median(row[call][key] for row in rows)

        print(
            f"fresh process (torch imported), {len(rows)} runs, medians: first call "
            f"{median('first', 'ms'):.1f} ms, peak RSS +{median('first', 'peak'):.1f} MB "
            f"(heap +{median('first', 'anon'):.1f}); second call {median('second', 'ms'):.1f} ms, "
            f"peak RSS +{median('second', 'peak'):.1f} MB"
        )

    if args.profile:
        costs = profile(rounds=7)
        print("per-op cost (median ms, op alone minus empty suite):")
        print("  " + ", ".join(f"{name} {ms:.2f}" for name, ms in costs))


if __name__ == "__main__":
    main()
