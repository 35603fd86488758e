"""Real jobs whose metric depends on one condition each, and a pair of manifests A/B that differ
in ten applicable ways (plus some that cannot be applied), for `envsnap run --as` and `bisect`.

A and B are one real capture of this test environment with planted differences, resealed.
The planted environment variables are all in envsnap's table of variables that change results
(NCCL_ALGO and NVIDIA_TF32_OVERRIDE act on GPUs only, so CPU jobs ignore them).
`numdefault` is a tiny pure-Python package built here as two wheels (1.0 and 2.0) whose numeric
default differs; it is installed from a local wheel directory, never from an index.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.run import capture_document
from envsnap.manifest.canonical import digest_of
from envsnap.manifest.model import manifest_from_document

METRIC = r"metric: (\S+)"

JOBS: dict[str, str] = {
    # Reduction order of a parallel sum follows torch's intra-op thread count.
    "threads": (
        "import torch\n"
        "x = (torch.arange(1_000_000, dtype=torch.float32) * 1e-3).sin()\n"
        "print(f'metric: {x.sum().item()!r}')\n"
    ),
    # The default dtype decides the precision of every tensor created without one.
    "dtype": (
        "import torch\n"
        "x = torch.linspace(0, 1, 1001)\n"
        "print(f'metric: {(x * x).mean().item()!r}')\n"
    ),
    # A data pipeline that walks a set of shard names: its order follows PYTHONHASHSEED.
    "hashseed": (
        "shards = {f'shard-{i}' for i in range(40)}\n"
        "ema = 0.0\n"
        "for name in shards:\n"
        "    ema = 0.9 * ema + 0.1 * (int(name.split('-')[1]) * 0.37 % 1.0)\n"
        "print(f'metric: {ema!r}')\n"
    ),
    # A job that does not seed itself: the declared seed decides its random stream.
    "seed": ("import random\nprint(f'metric: {sum(random.random() for _ in range(100))!r}')\n"),
    # A package release changed a numeric default (an epsilon).
    "package": ("import numdefault\nprint(f'metric: {numdefault.smooth(0.25)!r}')\n"),
    # Noise: a different value on every run, whatever the conditions.
    "noise": ("import os\nprint(f'metric: {int.from_bytes(os.urandom(6), \"big\") / 2**48!r}')\n"),
    # Depends on nothing that differs.
    "constant": "print('metric: 0.25')\n",
    # Prints what the startup hook set, for `run --as`.
    "probe": (
        "import os, random, torch\n"
        "print('threads', torch.get_num_threads())\n"
        "print('dtype', torch.get_default_dtype())\n"
        "print('deterministic', torch.backends.cudnn.deterministic)\n"
        "print('benchmark', torch.backends.cudnn.benchmark)\n"
        "print('torch_seed', torch.initial_seed())\n"
        "print('hashseed', os.environ.get('PYTHONHASHSEED'))\n"
        "print('nccl', os.environ.get('NCCL_ALGO'))\n"
        "print('secret', os.environ.get('NCCL_SECRET_TOKEN'))\n"
    ),
}

# Planted causes: the condition each job depends on.
CAUSES = {
    "threads": "torch:num_threads",
    "dtype": "torch:default_dtype",
    "hashseed": "env:PYTHONHASHSEED",
    "seed": "seed",
    "package": "package:numdefault",
}

_NUMDEFAULT = (
    "EPS = {eps!r}\n\n\ndef smooth(x: float) -> float:\n    return (x + EPS) / (1 + 2 * EPS)\n"
)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(directory: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """NAME-VERSION-py3-none-any.whl holding `files`, written by hand (no build backend)."""
    info = f"{name}-{version}.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: envsnap-tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def build_wheel(directory: Path, version: str, eps: float) -> Path:
    """numdefault-VERSION-py3-none-any.whl: a package whose EPS differs by version."""
    source = _NUMDEFAULT.format(eps=eps).encode()
    return write_wheel(directory, "numdefault", version, {"numdefault/__init__.py": source})


def base_document() -> dict[str, Any]:
    """A real capture of this process, torch included."""
    return capture_document(config=CaptureConfig(import_torch=True))


def _package(version: str) -> dict[str, Any]:
    return {"name": "numdefault", "version": version, "installer": "pip", "source": "index"}


def _plant(doc: dict[str, Any], side: str) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    b = side == "b"
    variables = out["env"]["variables"]
    for name in [n for n in variables if n.startswith(("NCCL_", "CUBLAS_", "TORCH_", "NVIDIA_"))]:
        del variables[name]
    variables["PYTHONHASHSEED"] = "1" if b else "0"
    variables["NCCL_ALGO"] = "Tree" if b else "Ring"
    variables["NVIDIA_TF32_OVERRIDE"] = "0" if b else "1"
    variables["NCCL_SECRET_TOKEN"] = "<redacted>"
    out["env"]["redacted"] = ["NCCL_SECRET_TOKEN"]
    if b:
        variables["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    torch = out["torch"]
    torch["num_threads"] = 3 if b else 1
    torch["default_dtype"] = "torch.float64" if b else "torch.float32"
    torch["cudnn"]["benchmark"] = b
    torch["cudnn"]["deterministic"] = b
    torch["matmul"]["float32_matmul_precision"] = "high" if b else "highest"
    seeds = out["seeds"]
    seeds.update(master_seed=2 if b else 1, declared_by="argument", level="seeded", derived={})
    seeds["pythonhashseed"] = variables["PYTHONHASHSEED"]
    out["packages"]["installed"]["numdefault"] = _package("2.0" if b else "1.0")
    # Differences no experiment on this machine can apply.
    out["system"]["hostname"] = "node-b" if b else "node-a"
    out["python"]["version"] = "3.12.1" if b else out["python"]["version"]
    out["digest"] = None
    out["digest"] = digest_of(out)
    manifest_from_document(out, side)
    return out


def write_pair(directory: Path, base: dict[str, Any]) -> tuple[Path, Path]:
    paths = []
    for side in ("a", "b"):
        path = directory / f"{side}.json"
        path.write_text(json.dumps(_plant(base, side), indent=1), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def write_job(directory: Path, name: str) -> Path:
    path = directory / f"job_{name}.py"
    path.write_text(JOBS[name], encoding="utf-8")
    return path
