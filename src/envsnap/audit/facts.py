"""Facts an advisory condition reads from a manifest document (its JSON form).

A fact name is one of three kinds:

- `package:NAME`: the installed version of a distribution, with fallbacks to where the
  manifest records the same library elsewhere (torch's own version, the CUDA stack's cuDNN,
  cuBLAS and NCCL, the tokenizer section's library versions);
- `env:NAME`: an environment variable; unset is a definite answer when the env section was
  captured, and unknown when it was not;
- `run:gpu` and `run:compiled`: what several sections say together about the run, for
  advisories that can only apply with a GPU, or only when torch.compile ran (see `run_gpu`
  and `run_compiled`);
- `run:cpu-matmul-fp32`, `run:cpu-conv-fp32`, `run:cpu-rnn-fp32`: what fp32 math of that
  op family runs as on the CPU ('ieee', 'bf16', 'tf32'), the one derived fact the differ,
  `show` and bisect read too (`manifest.effective.op_precision`): a bf16 setting the CPU has
  no bf16 kernels for runs as 'ieee';
- a dotted path into the document, where `*` stands for every key of an object or item of
  a list (so `gpu.devices.*.compute_capability` yields one value per GPU).

Every fact resolves to a tuple of values, or None when the manifest cannot tell.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from envsnap.manifest.effective import CPU_OPS, op_precision

Doc = dict[str, Any]
Values = tuple[Any, ...] | None
Resolver = Callable[[Doc], Values]

_NORMALIZE = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return _NORMALIZE.sub("-", name).lower()


# Where a library's version is also recorded, for manifests whose package list lacks it
# (a system cuDNN, a conda install, an imported record). NVIDIA wheels of every CUDA major
# (-cu11, -cu12, -cu13) resolve to the library the process actually loaded.
_FALLBACKS: dict[str, tuple[str, ...]] = {
    "torch": ("torch.version", "cuda_stack.torch_version"),
    "transformers": ("tokenizer.transformers_version",),
    "tokenizers": ("tokenizer.tokenizers_version",),
    "cudnn": ("cuda_stack.libraries.cudnn.version", "torch.cudnn.version"),
    "cublas": ("cuda_stack.libraries.cublas.version",),
    "nccl": ("cuda_stack.libraries.nccl.version", "torch.nccl_version"),
}
_NVIDIA_WHEEL = re.compile(r"nvidia-(cudnn|cublas|nccl)-cu\d+")


def get_path(doc: Any, parts: tuple[str, ...]) -> list[Any] | None:
    """Values at a dotted path with `*` wildcards; None when a step is missing."""
    nodes: list[Any] = [doc]
    for part in parts:
        found: list[Any] = []
        for node in nodes:
            if part == "*":
                if isinstance(node, dict):
                    found.extend(node.values())
                elif isinstance(node, list):
                    found.extend(node)
            elif isinstance(node, dict) and part in node:
                found.append(node[part])
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                found.append(node[int(part)])
        if not found:
            return None
        nodes = found
    return nodes


def _cudnn_text(value: Any) -> str | None:
    """torch reports cuDNN as an integer (8902 -> 8.9.2, 90100 -> 9.1.0)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value if isinstance(value, str) else None
    if value >= 10000:
        return f"{value // 10000}.{value // 100 % 100}.{value % 100}"
    return f"{value // 1000}.{value // 100 % 10}.{value % 100}"


@lru_cache(maxsize=1024)
def _where(name: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """A distribution's normalised name and the other places its version is recorded."""
    wanted = normalize(name)
    nvidia = _NVIDIA_WHEEL.fullmatch(wanted)
    key = nvidia.group(1) if nvidia else wanted
    return wanted, tuple(tuple(dotted.split(".")) for dotted in _FALLBACKS.get(key, ()))


def package_version(doc: Doc, name: str) -> Values:
    """The installed version of a distribution; () when it is known to be absent."""
    wanted, fallbacks = _where(name)
    installed = (doc.get("packages") or {}).get("installed")
    if isinstance(installed, dict):
        entry = installed.get(wanted)
        if isinstance(entry, dict) and isinstance(entry.get("version"), str):
            return (entry["version"],)
    for parts in fallbacks:
        values = get_path(doc, parts)
        text = _cudnn_text(values[0]) if values else None
        if text:
            return (text,)
    return () if isinstance(installed, dict) else None


def env_value(doc: Doc, name: str) -> Values:
    variables = (doc.get("env") or {}).get("variables")
    if not isinstance(variables, dict):
        return None
    return (variables.get(name),)


def _section(doc: Doc, name: str) -> dict[str, Any] | None:
    section = doc.get(name)
    return section if isinstance(section, dict) else None


def run_gpu(doc: Doc) -> Values:
    """Whether the run could use a GPU: False for a torch built without CUDA or ROCm, or when
    no GPU was found or none was visible to the job; True when a GPU was found and torch can
    use one; None when the manifest cannot tell (no NVML, say, and torch's CUDA not probed)."""
    torch, gpu = _section(doc, "torch"), _section(doc, "gpu")
    gpu_build = None if torch is None else bool(torch.get("cuda_built") or torch.get("hip"))
    if gpu_build is False:
        return (False,)
    if torch is not None and (
        torch.get("cuda_available") is False or torch.get("cuda_device_count") == 0
    ):
        return (False,)
    if gpu is not None:
        hidden = gpu.get("cuda_visible_devices") is not None and gpu.get("visible") == []
        if gpu.get("device_count") == 0 or hidden:
            return (False,)
        if gpu.get("devices"):
            return (True,)
    return (True,) if torch is not None and torch.get("cuda_available") is True else None


# Either variable set to "1" turns torch.compile into a no-op: torch/_dynamo/config.py
# (`disable = os.environ.get("TORCH_COMPILE_DISABLE", "0") == "1"`) and
# torch/_dynamo/eval_frame.py (`os.environ.get("TORCHDYNAMO_DISABLE", "") == "1"`).
_COMPILE_OFF = ("TORCH_COMPILE_DISABLE", "TORCHDYNAMO_DISABLE")


def run_compiled(doc: Doc) -> Values:
    """Whether torch.compile ran: True when Dynamo had compiled a graph by the capture
    (`torch.compiled`) or the model was captured inside the module that torch.compile wraps it
    in, False when compilation was switched off, None otherwise (False in `torch.compiled` is no
    evidence: a capture at job start precedes any compilation).

    An imported torch._inductor (the `torch.compile` section) is no evidence: libraries import
    it without compiling anything, and a capture at job start precedes any compilation.
    """
    if any(env_value(doc, name) == ("1",) for name in _COMPILE_OFF):
        return (False,)
    if (_section(doc, "torch") or {}).get("compiled") is True:  # Dynamo had compiled a graph
        return (True,)
    wrappers = (_section(doc, "parallel") or {}).get("model_wrappers")
    if isinstance(wrappers, list) and any(
        isinstance(name, str) and name.rpartition(".")[2] == "OptimizedModule" for name in wrappers
    ):
        return (True,)
    return None


def cpu_fp32(op: str) -> Resolver:
    """What fp32 `op` math runs as on the CPU; None when the manifest cannot tell."""

    def effective(doc: Doc) -> Values:
        precision = op_precision(doc, "cpu", op).precision
        return None if precision is None else (precision,)

    return effective


_DERIVED: dict[str, Resolver] = {
    "run:gpu": run_gpu,
    "run:compiled": run_compiled,
    **{f"run:cpu-{op}-fp32": cpu_fp32(op) for op in CPU_OPS},
}


def resolver(fact: str) -> Resolver:
    """A function from a document to the fact's values."""
    if fact.startswith("run:"):
        if fact not in _DERIVED:
            raise ValueError(f"unknown fact {fact!r} (known: {', '.join(_DERIVED)})")
        return _DERIVED[fact]
    if fact.startswith("package:"):
        name = fact.removeprefix("package:")
        return lambda doc: package_version(doc, name)
    if fact.startswith("env:"):
        var = fact.removeprefix("env:")
        return lambda doc: env_value(doc, var)
    parts = tuple(fact.split("."))
    if "*" in parts:

        def by_path(doc: Doc) -> Values:
            values = get_path(doc, parts)
            return tuple(values) if values is not None else None

        return by_path
    return lambda doc: _at(doc, parts)


def _at(doc: Any, parts: tuple[str, ...]) -> Values:
    """`get_path` for a path without wildcards: one value or None, without building lists."""
    node = doc
    for part in parts:
        if isinstance(node, dict):
            if part not in node:
                return None
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return (node,)
