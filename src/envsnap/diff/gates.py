"""Settings that cannot act on either side rank as what they are: latent, or info.

A GPU-only setting (cuDNN, cuBLAS, NCCL, TF32 variables and flags, CUDA libraries) cannot change
results when neither side's job ran on a GPU; a TF32 setting cannot when neither side's GPUs
can run TF32.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit
from envsnap.diff.device import gpu_in_use, tf32_gpu
from envsnap.diff.gpu_facts import cudnn_toggled
from envsnap.diff.report import Severity

Doc = dict[str, Any]

# Rules about TF32 settings: they matter only where a GPU can run TF32 (numerics.md rule 3).
TF32_RULES = frozenset(
    {
        "flip.torch-1.12-tf32",
        "flip.torch-2.9-fp32-precision",
        "precision.tf32-matmul",
        "precision.tf32-conv",
        "precision.tf32-override",
    }
)
_LOW: tuple[Severity, Severity, Severity] = ("low", "low", "low")
_INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")


def apply_gates(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """Lower the hits whose mechanism cannot act on either side."""
    no_gpu = gpu_in_use(a) is False and gpu_in_use(b) is False
    no_tf32 = tf32_gpu(a) is False and tf32_gpu(b) is False
    out: list[Hit] = []
    toggled = cudnn_toggled(a, b)
    for hit in hits:
        if toggled and hit.path.startswith("torch.effective.conv_fp32."):
            # cuDNN itself was switched off: conv TF32 follows from that one cause.
            out.append(replace(hit, rule="algo.cudnn-api", title=None))
            continue
        rule = RULES_BY_ID[hit.rule]
        if no_gpu and rule.gpu_only:
            title = f"{hit.title or rule.title} (GPU-only; neither side ran on a GPU)"
            out.append(replace(hit, severity=_INFO, active=False, title=title))
        elif no_tf32 and hit.rule in TF32_RULES:
            out.append(replace(hit, severity=_LOW, active=False))
        else:
            out.append(hit)
    return out
