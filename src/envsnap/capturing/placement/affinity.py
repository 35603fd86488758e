"""The CPUs this process may run on, their NUMA nodes, and the thread count that follows.

A CPU binding (srun --cpu-bind, taskset, a cgroup cpuset, Kubernetes' static CPU manager)
narrows the affinity mask, and OpenMP starts one thread per CPU in that mask unless
OMP_NUM_THREADS says otherwise (GCC's libgomp counts the CPUs of the mask:
gcc/libgomp/config/linux/proc.c). torch's intra-op pool starts from the same number, so a
binding quietly changes the thread count, and with it the order of parallel reductions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from envsnap.capturing.placement import read_text
from envsnap.manifest.records import CpuAffinity

NODE_DIR = "sys/devices/system/node"
_NODE = re.compile(r"node(\d+)")
_MAX_NODES = 1024
_MAX_CPU = 1 << 16


def parse_cpulist(text: str) -> set[int]:
    """'0-3,8,10-11' -> {0, 1, 2, 3, 8, 10, 11}; malformed parts are skipped."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        low, sep, high = part.strip().partition("-")
        try:
            first = int(low)
            last = int(high) if sep else first
        except ValueError:
            continue
        if 0 <= first <= last < _MAX_CPU:
            cpus.update(range(first, last + 1))
    return cpus


def format_cpulist(cpus: Iterable[int]) -> str:
    """{0, 1, 2, 3, 8} -> '0-3,8'."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    start = previous = None
    for cpu in [*ordered, None]:
        if cpu is not None and previous is not None and cpu == previous + 1:
            previous = cpu
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = cpu
    return ",".join(parts)


def numa_nodes(root: Path) -> dict[int, set[int]]:
    """NUMA node -> its CPUs, from /sys/devices/system/node/node*/cpulist under `root`."""
    try:
        entries = os.listdir(root / NODE_DIR)
    except OSError:
        return {}
    nodes: dict[int, set[int]] = {}
    for entry in sorted(entries)[:_MAX_NODES]:
        match = _NODE.fullmatch(entry)
        text = read_text(root, f"{NODE_DIR}/{entry}/cpulist", 65536) if match else None
        if match and text is not None:
            nodes[int(match.group(1))] = parse_cpulist(text)
    return nodes


def _omp_threads(env: Mapping[str, str]) -> int | None:
    """The outer level of OMP_NUM_THREADS ('8' or '8,2'), when it is a positive integer."""
    head = env.get("OMP_NUM_THREADS", "").split(",", 1)[0].strip()
    return int(head) if head.isdigit() and int(head) > 0 else None


def _process_affinity() -> set[int] | None:
    getter: Callable[[int], set[int]] | None = getattr(os, "sched_getaffinity", None)
    if getter is None:
        return None
    try:
        return set(getter(0))
    except OSError:
        return None


def read_affinity(
    root: Path,
    env: Mapping[str, str],
    unknown: dict[str, str],
    affinity: Callable[[], set[int] | None] = _process_affinity,
) -> CpuAffinity:
    """This process's CPUs, their NUMA nodes and the default thread count."""
    cpus = affinity()
    record = CpuAffinity(
        cpus=None,
        count=None,
        default_threads=None,
        default_threads_source=None,
    )
    if cpus is None:
        unknown["cpu.cpus"] = "os.sched_getaffinity is not available on this platform"
    else:
        record.cpus, record.count = format_cpulist(cpus), len(cpus)
        nodes = numa_nodes(root)
        if not nodes:
            unknown["cpu.numa_nodes"] = f"/{NODE_DIR} lists no NUMA nodes"
        for node, members in sorted(nodes.items()):
            allowed = members & cpus
            if allowed:
                record.numa_nodes.append(node)
                record.numa_cpus[str(node)] = format_cpulist(allowed)
    threads = _omp_threads(env)
    if threads is not None:
        record.default_threads, record.default_threads_source = threads, "env:OMP_NUM_THREADS"
    elif record.count is not None:
        record.default_threads, record.default_threads_source = record.count, "affinity"
    return record
