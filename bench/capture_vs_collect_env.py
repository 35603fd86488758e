"""`envsnap capture` against `python -m torch.utils.collect_env`, on this machine, interleaved.

Both run as fresh processes of the same interpreter, alternating which goes first in each
round, together with the floor: `python -c pass`, the interpreter's own start. One untimed
warm-up run of each fills the OS file cache and the bytecode caches (as after a normal
`pip install`). Wall time is measured around spawn and reap; CPU time (user + system) and
peak RSS come from the child's `wait4` usage, which includes the children it waited for (git,
pip...). On a shared machine wall times stretch with the load; CPU times much less so, hence
both ratios.

    python bench/capture_vs_collect_env.py [--runs 7] [--cwd PATH]

Targets: envsnap's median wall time at most 0.10 of collect_env's; peak RSS at most 80 MiB.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

WALL_RATIO_TARGET = 0.10
RSS_TARGET_MIB = 80.0


@dataclass
class Runs:
    name: str
    argv: list[str]
    wall_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # Let both tools write their bytecode caches during the warm-up, as an installed package has.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one run; raises if the command fails."""
    started = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    # Reap it ourselves: wait4 hands back that child's own resource usage.
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {child.returncode}")
    rss_kib = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    return wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each (min 5)")
    parser.add_argument("--cwd", type=Path, default=Path.cwd(), help="directory to run in")
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    if importlib.util.find_spec("torch") is None:
        print("torch is not installed: collect_env cannot run", file=sys.stderr)
        return 2

    env = _child_env()
    with tempfile.TemporaryDirectory(prefix="envsnap-bench-") as scratch:
        out = str(Path(scratch) / "manifest.json")
        tools = [
            Runs("envsnap capture", [sys.executable, "-m", "envsnap", "capture", "-o", out]),
            Runs("collect_env", [sys.executable, "-m", "torch.utils.collect_env"]),
            Runs("python -c pass", [sys.executable, "-c", "pass"]),
        ]
        for tool in tools:
            run_once(tool.argv, args.cwd, env)  # warm-up, untimed
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        for round_index in range(args.runs):
            order = tools if round_index % 2 == 0 else tools[::-1]
            for tool in order:
                wall, cpu, rss = run_once(tool.argv, args.cwd, env)
                tool.wall_s.append(wall)
                tool.cpu_s.append(cpu)
                tool.rss_mib.append(rss)
        load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs, cwd {args.cwd}")
    print(
        f"{args.runs} interleaved runs each; 1-min load average {load_before:.2f} -> {load_after:.2f}"
    )
    print(f"{'tool':<18}{'median s':>10}{'min s':>9}{'max s':>9}{'CPU s':>9}{'peak RSS MiB':>15}")
    for tool in tools:
        print(
            f"{tool.name:<18}{statistics.median(tool.wall_s):>10.3f}{min(tool.wall_s):>9.3f}"
            f"{max(tool.wall_s):>9.3f}{statistics.median(tool.cpu_s):>9.3f}"
            f"{max(tool.rss_mib):>15.1f}"
        )
    envsnap, collect_env, floor = tools
    ratio = statistics.median(envsnap.wall_s) / statistics.median(collect_env.wall_s)
    paired = statistics.median(
        a / b for a, b in zip(envsnap.wall_s, collect_env.wall_s, strict=True)
    )
    cpu_ratio = statistics.median(envsnap.cpu_s) / statistics.median(collect_env.cpu_s)
    above_floor = statistics.median(envsnap.wall_s) - statistics.median(floor.wall_s)
    rss = max(envsnap.rss_mib)
    print(f"wall ratio envsnap/collect_env: {ratio:.3f} (median of per-round ratios {paired:.3f})")
    print(f"CPU ratio envsnap/collect_env: {cpu_ratio:.3f}")
    print(f"envsnap above the interpreter floor: {above_floor:.3f} s wall")
    print(
        f"target wall ratio <= {WALL_RATIO_TARGET:.2f}: {'met' if ratio <= WALL_RATIO_TARGET else 'MISSED'}; "
        f"target peak RSS <= {RSS_TARGET_MIB:.0f} MiB: {'met' if rss <= RSS_TARGET_MIB else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
