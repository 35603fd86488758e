"""Capture cost: in-process with torch imported, and the CLI against torch's collect_env.

1. In-process `envsnap.capture()` (every collector) in a process that already imported torch:
   median of N runs after the first call (target <= 150 ms), the first call itself, and
   torch's own `collect_env.get_env_info()` in the same process, interleaved, as the peer.
2. `envsnap capture` (no --torch) vs `python -m torch.utils.collect_env`, each as a fresh
   subprocess, interleaved, several runs each: medians and their ratio (target <= 0.10).

Usage: python bench/inprocess_capture.py [--runs 20] [--peer-runs 5] [--cli-runs 5]
(--cli-runs 0: part 1 only)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def in_process(runs: int, peer_runs: int) -> dict[str, Any]:
    """envsnap.capture() and collect_env's get_env_info() in this process, interleaved."""
    import torch  # the job has torch imported: the torch collector reads it
    from torch.utils import collect_env

    import envsnap

    assert torch.cuda.is_initialized() is False
    started = time.perf_counter()
    envsnap.capture()  # first call: imports the collectors and builds the models it fills
    first = (time.perf_counter() - started) * 1000
    times: list[float] = []
    peer: list[float] = []
    per_collector: dict[str, list[float]] = {}
    for index in range(runs):
        started = time.perf_counter()
        manifest = envsnap.capture()
        times.append((time.perf_counter() - started) * 1000)
        for name, record in manifest.collectors.items():
            per_collector.setdefault(name, []).append(record.duration_ms)
        if index < peer_runs:
            started = time.perf_counter()
            collect_env.get_env_info()
            peer.append((time.perf_counter() - started) * 1000)
    assert manifest.torch is not None, manifest.collectors["torch"]
    return {"first": first, "times": times, "peer": peer, "per_collector": per_collector}


def wall(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True, timeout=600)
    return (time.perf_counter() - started) * 1000


def cli_vs_collect_env(runs: int, cwd: Path) -> tuple[list[float], list[float]]:
    out = Path(tempfile.mkdtemp()) / "m.json"
    ours = [sys.executable, "-m", "envsnap", "capture", "-o", str(out)]
    theirs = [sys.executable, "-m", "torch.utils.collect_env"]
    wall(ours, cwd), wall(theirs, cwd)  # warm the page cache for both
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):  # interleaved, so load changes hit both alike
        a.append(wall(ours, cwd))
        b.append(wall(theirs, cwd))
    return a, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--peer-runs", type=int, default=5, help="collect_env runs in-process")
    parser.add_argument("--cli-runs", type=int, default=5, help="0 skips part 2")
    args = parser.parse_args()
    cwd = Path(__file__).resolve().parents[1]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")

    result = in_process(args.runs, args.peer_runs)
    times, peer = result["times"], result["peer"]
    print(
        f"in-process capture (torch imported), {len(times)} runs: median "
        f"{statistics.median(times):.1f} ms, min {min(times):.1f}, max {max(times):.1f}; "
        f"first call {result['first']:.1f} ms"
    )
    if peer:
        print(
            f"collect_env.get_env_info() in the same process, {len(peer)} runs interleaved: "
            f"median {statistics.median(peer):.1f} ms; ratio "
            f"{statistics.median(times) / statistics.median(peer):.3f}"
        )
    medians = {name: statistics.median(v) for name, v in result["per_collector"].items()}
    print("  per collector (median ms): " + ", ".join(f"{k} {v:.1f}" for k, v in medians.items()))

    if args.cli_runs < 1:  # bench/capture_vs_collect_env.py measures the CLI in more detail
        return
    ours, theirs = cli_vs_collect_env(args.cli_runs, cwd)
    m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
    print(f"envsnap capture (CLI, no --torch), {len(ours)} runs: median {m_ours:.0f} ms")
    print(f"python -m torch.utils.collect_env, {len(theirs)} runs: median {m_theirs:.0f} ms")
    print(f"ratio envsnap / collect_env: {m_ours / m_theirs:.3f}")


if __name__ == "__main__":
    main()
