"""The system CUDA toolkit, where it is the CUDA the job builds against and loads.

collect_env's "CUDA runtime version" is the system toolkit's `nvcc --version`
(torch/utils/collect_env.py, get_running_cuda_version); the importer keeps it as a system copy
of the CUDA runtime. A torch wheel carries its own CUDA runtime and libraries, so beside torch
that copy is one torch does not load, and a change in it is bookkeeping. A report whose torch
fields print N/A was taken where torch is not installed: the job is CuPy, TensorFlow, JAX or a
CUDA C++ library, and its CUDA libraries (cuBLAS, cuFFT, cuSOLVER, cuSPARSE...) come from that
system toolkit. There a toolkit change is the CUDA toolkit change the job felt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from envsnap.diff.derived import Hit, get, version_of

Doc = dict[str, Any]
RULE = "stack.cuda-toolkit"
_COPIES = "cuda_stack.libraries.cuda_runtime.copies"


def _nvcc(doc: Doc) -> tuple[str, str] | None:
    """(path, version) of the system toolkit's nvcc the record states, or None."""
    copies = get(doc, _COPIES)
    if not isinstance(copies, list):
        return None
    for index, copy in enumerate(copies):
        if not isinstance(copy, dict):
            continue
        version = copy.get("version")
        if copy.get("source") == "system" and copy.get("package") == "nvcc":
            return (f"{_COPIES}.{index}.version", version) if isinstance(version, str) else None
    return None


def _torch_cuda(doc: Doc) -> bool:
    """True when the record names a torch, or a CUDA that torch was built with."""
    if version_of(doc, "torch") is not None:
        return True
    return any(
        get(doc, path) is not None
        for path in ("cuda_stack.torch_cuda", "torch.cuda", "cuda_stack.torch_build")
    )


def system_toolkit(a: Doc, b: Doc) -> Iterator[Hit]:
    """The system toolkit's change, on two records of jobs outside torch."""
    if _torch_cuda(a) or _torch_cuda(b):
        return
    found_a, found_b = _nvcc(a), _nvcc(b)
    if found_a is None or found_b is None or found_a[1] == found_b[1]:
        return
    (path, va), (_, vb) = found_a, found_b
    yield Hit(
        RULE,
        path,
        va,
        vb,
        title=f"CUDA toolkit changed: {va} → {vb} (the system toolkit's nvcc; no torch in "
        "either record, so the job's CUDA libraries come from it)",
    )
