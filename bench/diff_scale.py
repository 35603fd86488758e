"""CLI wall time of `envsnap diff` vs `mlenv diff` on manifests with 1k/5k/20k packages.

Each pair is the full fixture manifest (every section filled) with N synthetic packages; side B
changes 10% of the versions, removes 1% and adds 1%, and carries the usual capture noise. The
same pairs are translated to mlenv-cli's snapshot format (sections of string maps). Runs are
interleaved (envsnap, mlenv, envsnap, ...) so machine load hits both alike; wall time includes
interpreter start. Also times deepdiff's DeepDiff on the same documents, in-process.

Usage: python bench/diff_scale.py [--runs 5] [--sizes 1000,5000,20000]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
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


def wall(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, child CPU seconds): CPU time stays meaningful on a loaded machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1000,5000,20000")
    args = parser.parse_args()
    mlenv = shutil.which("mlenv")
    work = Path(tempfile.mkdtemp(prefix="envsnap-bench-"))
    print(f"python {sys.version.split()[0]}; runs={args.runs}; mlenv={'yes' if mlenv else 'no'}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"{'packages':>8} {'envsnap wall/cpu s':>18} {'mlenv wall/cpu s':>16} {'ratio':>6}"
        f" {'deepdiff s':>10} {'in-proc diff s':>14} {'findings':>8}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        a, b = make_pair(size)
        paths = {}
        for side, doc in (("a", a), ("b", b)):
            paths[side] = work / f"{size}-{side}.json"
            paths[side].write_text(json.dumps(doc), encoding="utf-8")
            paths["m" + side] = work / f"{size}-{side}.mlenv.json"
            paths["m" + side].write_text(json.dumps(to_mlenv(doc)), encoding="utf-8")
        ours = [
            sys.executable,
            "-m",
            "envsnap",
            "diff",
            str(paths["a"]),
            str(paths["b"]),
            "-f",
            "json",
        ]
        theirs = [mlenv, "diff", str(paths["ma"]), str(paths["mb"]), "--json"] if mlenv else None
        wall(ours)  # warm the file cache
        t_ours, t_theirs = [], []
        for _ in range(args.runs):
            t_ours.append(wall(ours))
            if theirs:
                t_theirs.append(wall(theirs))
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
        nan = (float("nan"), float("nan"))
        w_ours, c_ours = (statistics.median(x) for x in zip(*t_ours, strict=True))
        w_theirs, c_theirs = (statistics.median(x) for x in zip(*(t_theirs or [nan]), strict=True))
        print(
            f"{size:>8} {w_ours:>9.3f}/{c_ours:<8.3f} {w_theirs:>8.3f}/{c_theirs:<7.3f}"
            f" {c_ours / c_theirs:>6.2f} {t_deep:>10.3f} {t_inproc:>14.3f}"
            f" {len(report.findings):>8}"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
