"""CLI wall time of `envsnap diff` vs `mlenv diff` on manifests with 1k/5k/20k packages.

Each pair is the full fixture manifest (every section filled) with N synthetic packages; side B
changes 10% of the versions, removes 1% and adds 1%, and carries the usual capture noise. The
same pairs are translated to mlenv-cli's snapshot format (sections of string maps). Runs are
interleaved (envsnap, floor, mlenv, then the reverse order) so machine load hits all alike;
wall time includes interpreter start. The floor is a bare interpreter parsing both JSON files,
what any Python diff must at least do. CPU time and peak RSS come from each child's `wait4`
usage; the ratio is envsnap CPU / mlenv CPU. Also times deepdiff's DeepDiff on the same
documents, in-process, and envsnap's comparison alone (no start-up, no validation).

Usage: python bench/diff_scale.py [--runs 5] [--sizes 1000,5000,20000] [--mlenv PATH]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "tests" / "fixtures" / "manifests" / "full.json"


def make_pair(size: int) -> tuple[dict[str, Any], dict[str, Any]]:
    from envsnap.manifest.model import manifest_from_document

    base = json.loads(FULL.read_text(encoding="utf-8"))
    installed = base["packages"]["installed"]
    for i in range(size - len(installed)):
        name = f"pkg-{i:05d}"
        installed[name] = {
            "name": name,
            "version": f"{i % 7}.{i % 13}.{i % 5}",
            "installer": "pip",
            "source": "index",
            "url": None,
            "vcs": None,
            "commit": None,
            "shadowed": [],
        }
    other = copy.deepcopy(base)
    names = sorted(n for n in other["packages"]["installed"] if n.startswith("pkg-"))
    for n in names[::10]:
        other["packages"]["installed"][n]["version"] += ".post1"
    for n in names[5::100]:
        del other["packages"]["installed"][n]
    for i in range(size // 100):
        name = f"new-{i:05d}"
        other["packages"]["installed"][name] = {**installed[names[0]], "name": name}
    other["created_at"] = "2031-01-01T00:00:00Z"
    other["system"]["hostname"] = "other-host"
    other["parallel"]["micro_batch_size"] = 16
    a = manifest_from_document(base, "a").sealed().to_document()
    b = manifest_from_document(other, "b").sealed().to_document()
    return a, b


def to_mlenv(doc: dict[str, Any]) -> dict[str, Any]:
    """The same facts in mlenv-cli's format: sections of flat string maps."""
    gpu = doc.get("gpu") or {}
    devices = gpu.get("devices", {})
    return {
        "schema_version": 1,
        "sections": {
            "python": {
                k: str(doc["python"][k]) for k in ("version", "implementation", "executable")
            },
            "platform": {
                "system": doc["system"]["os"],
                "release": doc["system"]["kernel"],
                "machine": doc["system"]["cpu"]["architecture"],
                "libc": str(doc["system"]["libc"]),
            },
            "packages": {n: p["version"] for n, p in doc["packages"]["installed"].items()},
            "cuda": {
                "torch_cuda": str(doc["torch"]["cuda"]),
                "cudnn": str(doc["torch"]["cudnn"]["version"]),
            },
            "gpus": {
                "count": str(len(devices)),
                "driver": str(gpu.get("driver_version")),
                **{f"gpu{k}": str(d["name"]) for k, d in devices.items()},
            },
            "env": dict(doc["env"]["variables"]),
        },
    }


# The floor of any diff in Python: start the interpreter and parse both files.
FLOOR = "import json, sys\nfor p in sys.argv[1:]:\n    json.load(open(p, 'rb'))"


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one child: CPU stays meaningful on a loaded machine."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _median(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    if not runs:
        return (float("nan"),) * 3
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    return wall, cpu, max(r[2] for r in runs)


def _paths(work: Path, size: int) -> dict[str, Path]:
    return {
        key: work / f"{size}-{side}{'.mlenv' if key.startswith('m') else ''}.json"
        for key, side in (("a", "a"), ("b", "b"), ("ma", "a"), ("mb", "b"))
    }


def write_pair(work: Path, size: int) -> None:
    """Write the pair (envsnap and mlenv formats); run in a child process, see main()."""
    paths = _paths(work, size)
    for side, doc in zip(("a", "b"), make_pair(size), strict=True):
        paths[side].write_text(json.dumps(doc), encoding="utf-8")
        paths["m" + side].write_text(json.dumps(to_mlenv(doc)), encoding="utf-8")


def _in_process(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float, int]:
    """(envsnap's comparison alone, deepdiff on the same documents, findings), seconds."""
    from envsnap.diff import diff_documents

    started = time.perf_counter()
    report = diff_documents(a, b)
    t_inproc = time.perf_counter() - started
    t_deep = float("nan")
    try:
        from deepdiff import DeepDiff

        started = time.perf_counter()
        DeepDiff(a, b, ignore_order=False)
        t_deep = time.perf_counter() - started
    except ImportError:
        pass
    return t_inproc, t_deep, len(report.findings)


Timing = tuple[float, float, float]


def _measure(paths: dict[str, Path], runs: int, mlenv: str | None) -> tuple[Timing, ...]:
    """Medians for envsnap, the floor and mlenv on one pair, interleaved, order alternating."""
    pair = [str(paths["a"]), str(paths["b"])]
    tools = {
        "envsnap": [sys.executable, "-m", "envsnap", "diff", *pair, "-f", "json"],
        "floor": [sys.executable, "-c", FLOOR, *pair],
    }
    if mlenv:
        tools["mlenv"] = [mlenv, "diff", str(paths["ma"]), str(paths["mb"]), "--json"]
    for argv in tools.values():
        run_once(argv)  # warm the file cache
    times: dict[str, list[Timing]] = {name: [] for name in tools}
    for round_index in range(runs):
        names = list(tools) if round_index % 2 == 0 else list(tools)[::-1]
        for name in names:
            times[name].append(run_once(tools[name]))
    return tuple(_median(times.get(k, [])) for k in ("envsnap", "floor", "mlenv"))


def main() -> None:
    if sys.argv[1:2] == ["--write-pair"]:
        write_pair(Path(sys.argv[3]), int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--mlenv", default=shutil.which("mlenv"), help="mlenv executable")
    parser.add_argument("--no-deepdiff", action="store_true", help="skip the deepdiff timing")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="envsnap-bench-"))
    print(f"python {sys.version.split()[0]}; runs={args.runs}; mlenv={args.mlenv or 'no'}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"{'packages':>8} {'envsnap wall/cpu s':>18} {'MiB':>5} {'floor wall/cpu s':>16}"
        f" {'mlenv wall/cpu s':>16} {'cpu ratio':>9} {'deepdiff s':>10} {'in-proc s':>9}"
        f" {'findings':>8}"
    )
    sizes = [int(s) for s in args.sizes.split(",")]
    # The pairs are built in a child process and the in-process timings come last: a large
    # parent would otherwise show up in the children's peak RSS (it is counted from the fork).
    for size in sizes:
        subprocess.run([sys.executable, __file__, "--write-pair", str(size), str(work)], check=True)
    measured = {size: _measure(_paths(work, size), args.runs, args.mlenv) for size in sizes}
    for size in sizes:
        ours, floor, theirs = measured[size]
        paths = _paths(work, size)
        a, b = (json.loads(paths[side].read_text(encoding="utf-8")) for side in ("a", "b"))
        t_inproc, t_deep, findings = (
            _in_process(a, b) if not args.no_deepdiff else (float("nan"), float("nan"), 0)
        )
        print(
            f"{size:>8} {ours[0]:>9.3f}/{ours[1]:<8.3f} {ours[2]:>5.0f} {floor[0]:>7.3f}/"
            f"{floor[1]:<8.3f} {theirs[0]:>7.3f}/{theirs[1]:<8.3f} {ours[1] / theirs[1]:>9.2f}"
            f" {t_deep:>10.3f} {t_inproc:>9.3f} {findings:>8}"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
