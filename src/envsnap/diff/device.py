"""Where the job ran, and what that makes of fp32 math, per side.

In-job captures record where the job's math ran (`precision.device`: the device the job
declared, else the one its model's parameters live on). Imported records state only whether
CUDA was available (`Is CUDA available` in a collect_env report, kept in
`imported_from.facts`; `torch.cuda_available` in other records); that is taken as where the job
ran. A side whose torch is a CPU-only build (`cuda_stack.torch_build == "cpu"`) cannot
have run torch math on a GPU, and a side with a GPU section and no devices ran on the CPU.

Where a record states no torch flags (an imported report), whether fp32 math ran as TF32 is
inferred from the release's defaults (PyTorch docs, notes/cuda.md; numerics.md B1, B2): the
TF32 flags appeared in torch 1.7; fp32 matmuls defaulted to TF32 in 1.7-1.11 and not from 1.12
(pytorch/pytorch#76509); cuDNN convolutions default to TF32 in every release since 1.7. A GPU
before Ampere runs no TF32 whatever the flags say.
"""

from __future__ import annotations

from typing import Any, Literal

from envsnap.diff.versions import within

Doc = dict[str, Any]
Tri = Literal["yes", "no", "unknown"]


def _get(doc: Doc, dotted: str) -> Any:
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def job_device(doc: Doc) -> str | None:
    """'cuda', 'cpu', 'mps', 'mixed'..., or None when the record does not say."""
    recorded = _get(doc, "precision.device")
    if isinstance(recorded, str) and recorded:
        return recorded.split(":", 1)[0]
    for path in (
        "imported_from.facts.is_cuda_available",
        "imported_from.sections.torch.cuda_available",
        "extra.imported_facts.is_cuda_available",
        "torch.cuda_available",
    ):
        available = _get(doc, path)
        if isinstance(available, bool):
            return "cuda" if available else "cpu"
    if _get(doc, "cuda_stack.torch_build") == "cpu":
        return "cpu"
    devices = _get(doc, "gpu.devices")
    if isinstance(doc.get("gpu"), dict) and isinstance(devices, dict) and not devices:
        return "cpu"
    return None


def devices(doc: Doc) -> list[dict[str, Any]]:
    """The side's GPUs, in index order."""
    found = _get(doc, "gpu.devices")
    if not isinstance(found, dict):
        return []
    return [found[key] for key in sorted(found, key=str) if isinstance(found[key], dict)]


def gpu_in_use(doc: Doc) -> bool | None:
    """True when the job's math ran on a GPU, False when it did not, None when unknown."""
    device = job_device(doc)
    if device is not None:
        return device == "cuda"
    return True if devices(doc) else None


# TF32 arrived with CUDA 11 (cuBLAS and cuDNN for Ampere): a torch built against CUDA 10 or
# earlier runs no TF32 on any GPU (PyTorch docs notes/cuda.md, "TensorFloat-32 (TF32) on
# Ampere (and later) devices"; CUDA 11.0 release notes).
TF32_CUDA_SINCE = 11


def tf32_build(doc: Doc) -> bool | None:
    """False when this side's torch cannot run TF32 (a CPU build, or one built against CUDA
    before 11), True when its CUDA build can, None when the record does not say."""
    build = _get(doc, "cuda_stack.torch_build")
    if build == "cpu":
        # A job that declares CUDA contradicts its CPU build (envsnap check says so): unknown.
        return None if job_device(doc) == "cuda" else False
    cuda = _get(doc, "cuda_stack.torch_cuda") or _get(doc, "torch.cuda")
    if not isinstance(cuda, str) and isinstance(build, str) and build.startswith("cu"):
        cuda = build[2:-1] if len(build) > 3 else None  # cu102 -> 10, cu118 -> 11
    major = str(cuda).split(".", 1)[0] if cuda is not None else ""
    return int(major) >= TF32_CUDA_SINCE if major.isdigit() else None


def tf32_gpu(doc: Doc) -> bool | None:
    flags = [_get(d, "capabilities.tf32") for d in devices(doc)]
    if not flags or any(flag is None for flag in flags):
        return None
    return any(flags)


# The torch flags that decide TF32 per family, as paths inside the `torch` section.
_TF32_FLAGS = {
    "matmul": ("matmul.allow_tf32", "matmul.float32_matmul_precision", "fp32_precision"),
    "conv": ("cudnn.allow_tf32", "cudnn.enabled", "fp32_precision"),
}


def recorded_tf32(doc: Doc, family: str | None = None) -> bool:
    """True when torch's TF32 flags (for `family`, or for both) were recorded on this side, not
    absent or listed as unknown (an imported report states none): else TF32 is inferred from
    torch's defaults."""
    torch = doc.get("torch")
    if not isinstance(torch, dict):
        return False
    unknown = torch.get("unknown")
    if not isinstance(unknown, dict):
        unknown = {}
    families = (family,) if family else tuple(_TF32_FLAGS)
    return not any(path in unknown for name in families for path in _TF32_FLAGS[name])


# The release defaults of the TF32 flags, for a side that does not record them.
TF32_FLAGS_SINCE = "1.7"
MATMUL_TF32_DEFAULT_UNTIL = "1.12"
_DEFAULT_SOURCE = "PyTorch docs notes/cuda.md"


def torch_version(doc: Doc) -> str | None:
    version = _get(doc, "cuda_stack.torch_version") or _get(doc, "torch.version")
    return version if isinstance(version, str) else None


def default_tf32(version: str | None, family: str) -> Tri:
    """Whether torch `version` lets fp32 `family` math use TF32 by default."""
    if version is None:
        # Every release that has TF32 defaults cuDNN to it; matmuls depend on the release.
        return "yes" if family == "conv" else "unknown"
    if not within(version, TF32_FLAGS_SINCE, None):
        return "no"  # no TF32 support before 1.7
    if family == "conv":
        return "yes"
    return "yes" if within(version, None, MATMUL_TF32_DEFAULT_UNTIL) else "no"


def tf32_default_note(doc: Doc, family: str) -> str:
    """What an unrecorded side's TF32 state is inferred from, in words."""
    version = torch_version(doc)
    release = f"torch {version}" if version else "an unrecorded torch release"
    if family == "conv":
        rule = "cuDNN conv allow_tf32 defaults to True in every release since 1.7"
    else:
        rule = (
            "matmul allow_tf32 defaulted to True in 1.7-1.11 and False from 1.12, "
            "pytorch/pytorch#76509"
        )
    return f"{release} defaults, flags not recorded ({rule}; {_DEFAULT_SOURCE})"


def _flag_tf32(doc: Doc, family: str) -> Tri:
    """Whether torch's flags let fp32 matmul ('matmul') or conv ('conv') use TF32."""
    effective = _get(doc, f"torch.effective.{family}_fp32.tf32")
    if effective in ("yes", "no"):
        return "yes" if effective == "yes" else "no"
    if not recorded_tf32(doc, family):
        return default_tf32(torch_version(doc), family)
    if family == "matmul":
        precision = _get(doc, "torch.matmul.float32_matmul_precision")
        on = _get(doc, "torch.matmul.allow_tf32") or precision in ("high", "medium")
    else:
        on = _get(doc, "torch.cudnn.allow_tf32")
    return "yes" if on else "no"


def tf32_allowed(doc: Doc, family: str) -> Tri:
    """Whether this side's settings let fp32 `family` math use TF32, whatever its GPU can do:
    torch's flags (or the release's defaults) and the override variables combined."""
    if _get(doc, "env.variables.NVIDIA_TF32_OVERRIDE") == "0":
        return "no"
    if family == "matmul" and _get(doc, "env.variables.TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1":
        return "yes"
    return _flag_tf32(doc, family)


def effective_tf32(doc: Doc, family: str) -> Tri:
    """Whether fp32 `family` math ran as TF32 on this side: the device, the GPU's capability,
    the override variables and torch's flags combined."""
    if gpu_in_use(doc) is False or tf32_build(doc) is False:
        return "no"
    capable = tf32_gpu(doc)
    if capable is False:
        return "no"
    allowed = tf32_allowed(doc, family)
    if capable is None and allowed == "yes":
        return "unknown"
    return allowed
