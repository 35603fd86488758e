"""The handful of manifest facts worth showing as tags or config in a tracking UI."""

from __future__ import annotations

from typing import Any

from envsnap.manifest.model import Manifest

# (tag name, dotted path in the manifest document)
_FACT_PATHS: tuple[tuple[str, str], ...] = (
    ("commit", "code.commit"),
    ("dirty", "code.dirty"),
    ("python", "python.version"),
    ("torch", "cuda_stack.torch_version"),
    ("torch_cuda", "cuda_stack.torch_cuda"),
    ("driver", "gpu.driver_version"),
    ("gpu", "gpu.devices.0.name"),
    ("gpu_arch", "gpu.devices.0.arch"),
    ("tf32_matmul", "torch.effective.matmul_tf32.value"),
    ("cudnn_deterministic", "torch.cudnn.deterministic"),
    ("cudnn_benchmark", "torch.cudnn.benchmark"),
    ("deterministic_algorithms", "torch.deterministic.algorithms"),
    ("world_size", "parallel.world_size"),
    ("global_batch", "parallel.global_batch"),
    ("grad_accum_steps", "parallel.grad_accum_steps"),
    ("loss_normalization", "parallel.loss_normalization"),
    ("master_seed", "seeds.master_seed"),
)


def lookup(document: dict[str, Any], path: str) -> Any:
    node: Any = document
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def key_facts(manifest: Manifest) -> dict[str, str]:
    """`envsnap.<name>` -> value for the facts present in the manifest (absent ones omitted)."""
    document = manifest.to_document()
    facts = {"envsnap.digest": manifest.digest or ""}
    for name, path in _FACT_PATHS:
        value = lookup(document, path)
        if value is not None and not isinstance(value, (dict, list)):
            facts[f"envsnap.{name}"] = str(value).lower() if isinstance(value, bool) else str(value)
    return facts
