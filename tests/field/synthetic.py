"""Synthetic mini-cases for the machinery's own tests (never part of the corpus)."""

from __future__ import annotations

import copy
from typing import Any

_BASE: dict[str, Any] = {
    "source": "https://github.com/example/project/issues/1",
    "title": "synthetic case for the builder's tests",
    "cause": "a synthetic difference",
    "how_established": "written for a unit test",
    "notes": "synthetic: no thread",
}

IMPORTED: dict[str, Any] = {
    **_BASE,
    "id": "synthetic-1-imported-a100-vs-v100",
    "label": {
        "mechanism": "gpu_model",
        "category": "hardware",
        "rules": ["hw.gpu"],
        "written": "before-run",
    },
    "route": "imported",
    "a": {
        "release": "2.1",
        "facts": {
            "torch": "2.1.0+cu121",
            "cuda_build": "12.1",
            "cuda_available": True,
            "gpus": ["NVIDIA A100-SXM4-80GB"],
            "driver": "535",
            "pip": {"numpy": "1.26.0", "torch": "2.1.0+cu121"},
        },
    },
    "b": {
        "release": "2.1",
        "facts": {
            "torch": "2.1.0+cu121",
            "cuda_build": "12.1",
            "cuda_available": True,
            "gpus": ["Tesla V100-SXM2-32GB"],
            "driver": "535",
            "pip": {"numpy": "1.26.0", "torch": "2.1.0+cu121"},
        },
    },
}

NVML: dict[str, Any] = {
    **_BASE,
    "id": "synthetic-2-nvml-a100-vs-h100",
    "label": {
        "mechanism": "gpu_model",
        "category": "hardware",
        "rules": ["hw.gpu"],
        "written": "before-run",
    },
    "route": "nvml",
    "a": {
        "gpus": ["a100-sxm4-80gb"],
        "driver": "535",
        "cuda_libs": {"nvidia-cudnn-cu12": "9.1.0.70", "nvidia-nccl-cu12": "2.21.5"},
        "env": {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"},
        "job": {
            "threads": 1,
            "deterministic": True,
            "sdpa": {"cudnn": False},
            "imports": ["transformers"],
            "amp_dtype": "bfloat16",
            "loaders": {"train": {"batch_size": 4, "shuffle": True}, "eval": {"batch_size": 8}},
            "argv": ["--lr", "0.05"],
        },
        "packages": {"transformers": "4.46.0"},
        "data": {"train.txt": "v1"},
    },
    "b": {
        "gpus": ["h100-sxm5-80gb", "h100-sxm5-80gb"],
        "driver": "535",
        "cuda_libs": {"nvidia-cudnn-cu12": "9.5.1.17", "nvidia-nccl-cu12": "2.21.5"},
        "job": {
            "threads": 1,
            "amp_dtype": "bfloat16",
            "loaders": {"train": {"batch_size": 4, "shuffle": True}, "eval": {"batch_size": 8}},
            "argv": ["--lr", "0.05"],
        },
        "packages": {"transformers": "4.47.0"},
        "repo": {"commit": "changed", "dirty": True},
        "data": {"train.txt": "v2"},
    },
}


def case(which: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of a synthetic case with top-level keys replaced."""
    out = copy.deepcopy(which)
    out.update(changes)
    return out
