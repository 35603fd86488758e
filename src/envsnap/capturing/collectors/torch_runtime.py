"""`torch`: the live PyTorch runtime flags, and the fp32 precision that actually runs.

Recorded only when torch is already imported by the capturing process (the in-job API), or when
the capture was asked to import it (`envsnap capture --torch`). It never initialises CUDA: the
calls below read global flags and library versions only. `torch.cuda.is_available()` would
initialise the CUDA driver, so it is asked only when CUDA is already initialised; otherwise the
devices for precision resolution come from NVML.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Literal, TypeVar

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.gpu import visible_devices
from envsnap.manifest import effective
from envsnap.manifest.sections.torch_runtime import (
    CompileSettings,
    CudnnFlags,
    Determinism,
    MatmulFlags,
    SdpaFlags,
    TorchBuild,
    TorchSection,
)

T = TypeVar("T")

# fp32_precision settings of torch >= 2.9, by path under torch.backends ('generic' is the root).
FP32_PRECISION_PATHS = (
    "generic",
    "cuda.matmul",
    "cudnn",
    "cudnn.conv",
    "cudnn.rnn",
    "mkldnn",
    "mkldnn.matmul",
    "mkldnn.conv",
    "mkldnn.rnn",
)
BUILD_SETTING_KEYS = (
    "BUILD_TYPE",
    "TORCH_VERSION",
    "CUDA_VERSION",
    "CUDNN_VERSION",
    "USE_CUDA",
    "USE_CUDNN",
    "USE_CUSPARSELT",
    "USE_NCCL",
    "USE_MKL",
    "USE_MKLDNN",
    "USE_OPENMP",
    "USE_ROCM",
    "USE_XPU",
    "USE_GLOO",
    "USE_MPI",
)
_SETTING = re.compile(r"(\w+)=(.*?)(?:, (?=\w+=)|,?\s*$)")
INDUCTOR_KEYS = (
    "fallback_random",
    "deterministic",
    "emulate_precision_casts",
    "max_autotune",
    "max_autotune_gemm",
    "coordinate_descent_tuning",
    "force_disable_caches",
)


class _Reader:
    """Reads one torch value; a failure is recorded on that field and the default returned."""

    def __init__(self) -> None:
        self.unknown: dict[str, str] = {}

    def get(self, key: str, fn: Callable[[], T], default: T) -> T:
        try:
            return fn()
        except Exception as exc:  # torch raises RuntimeError, AttributeError, AssertionError...
            self.unknown[key] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
            return default


def import_torch(context: CaptureContext) -> tuple[ModuleType, Literal["job", "envsnap"]]:
    """The torch the job imported, or a fresh import when the config asks for one."""
    module = sys.modules.get("torch")
    if module is not None:
        return module, "job"
    if not context.config.import_torch:
        raise CollectorUnavailable(
            "torch is not imported by this process (use --torch to import it)"
        )
    try:
        import torch
    except ImportError as exc:
        raise CollectorUnavailable(f"torch is not installed ({exc})") from None
    return torch, "envsnap"


def fp32_precisions(torch: Any) -> dict[str, str]:
    values: dict[str, str] = {}
    for path in FP32_PRECISION_PATHS:
        node = torch.backends
        try:
            if path != "generic":
                for part in path.split("."):
                    node = getattr(node, part)
            value = node.fp32_precision
        except (AttributeError, RuntimeError):
            continue  # Older torch: the API does not exist.
        if isinstance(value, str):
            values[path] = value
    return values


def parse_config(text: str) -> tuple[dict[str, str], str | None, str | None]:
    """Build settings, oneDNN version and OpenMP version from torch.__config__.show()."""
    settings: dict[str, str] = {}
    for line in text.splitlines():
        if "Build settings:" in line:
            body = line.split("Build settings:", 1)[1].strip()
            settings = {key: value.strip() for key, value in _SETTING.findall(body)}
    onednn = re.search(r"(?:MKL-DNN|oneDNN) v([\w.]+)", text)
    openmp = re.search(r"OpenMP (\d+)", text)
    return settings, onednn.group(1) if onednn else None, openmp.group(1) if openmp else None


def _build(torch: Any, reader: _Reader) -> TorchBuild:
    text = reader.get("build", lambda: str(torch.__config__.show()), "")
    settings, onednn, openmp = parse_config(text)
    arch_flags = getattr(torch._C, "_cuda_getArchFlags", None)
    arch = reader.get("build.cuda_arch_list", lambda: arch_flags() if arch_flags else "", "")
    return TorchBuild(
        blas=settings.get("BLAS_INFO") or None,
        lapack=settings.get("LAPACK_INFO") or None,
        onednn=onednn,
        openmp=openmp,
        mkl=bool(torch.backends.mkl.is_available()),
        mkldnn=bool(torch.backends.mkldnn.is_available()),
        cuda_arch_list=sorted(str(arch or "").split()),
        settings={key: settings[key] for key in BUILD_SETTING_KEYS if key in settings},
    )


def _compile(reader: _Reader) -> CompileSettings | None:
    # Importing torch._inductor costs seconds; read it only when the job already has.
    config = sys.modules.get("torch._inductor.config")
    if config is None:
        reader.unknown["compile"] = (
            "torch._inductor is not imported; TORCHINDUCTOR_* variables are in the env section"
        )
        return None
    values = {key: getattr(config, key, None) for key in INDUCTOR_KEYS}
    return CompileSettings(**{k: v if isinstance(v, bool) else None for k, v in values.items()})


def _nccl(torch: Any, reader: _Reader) -> str | None:
    if not hasattr(torch._C, "_nccl_version"):
        reader.unknown["nccl_version"] = "this torch is built without NCCL"
        return None
    version = reader.get("nccl_version", torch.cuda.nccl.version, None)
    if isinstance(version, tuple):
        return ".".join(str(part) for part in version)
    return str(version) if version is not None else None


def _devices(
    torch: Any, env: Mapping[str, str], cuda_built: bool, initialized: bool
) -> tuple[list[effective.Device] | None, str]:
    if not cuda_built:
        return [], "torch has no CUDA support"
    if initialized:
        count = torch.cuda.device_count()
        return [
            effective.Device(
                name=str(torch.cuda.get_device_name(i)),
                cc="{}.{}".format(*torch.cuda.get_device_capability(i)),
            )
            for i in range(count)
        ], f"{count} visible (torch.cuda)"
    return visible_devices(env)


def read_torch(
    torch: Any, env: Mapping[str, str], imported_by: Literal["job", "envsnap"]
) -> TorchSection:
    """The section from a torch module, without initialising CUDA."""
    reader = _Reader()
    backends = torch.backends
    cuda_built = bool(backends.cuda.is_built())
    initialized = bool(torch.cuda.is_initialized())
    if not initialized:
        reader.unknown["cuda_available"] = (
            "not probed: CUDA is not initialised and probing would initialise the driver"
        )
    matmul = backends.cuda.matmul
    cudnn = CudnnFlags(
        enabled=bool(backends.cudnn.enabled),
        benchmark=bool(backends.cudnn.benchmark),
        deterministic=bool(backends.cudnn.deterministic),
        allow_tf32=reader.get("cudnn.allow_tf32", lambda: bool(backends.cudnn.allow_tf32), None),
        available=bool(backends.cudnn.is_available()),
        version=reader.get("cudnn.version", backends.cudnn.version, None),
    )
    matmul_flags = MatmulFlags(
        allow_tf32=reader.get("matmul.allow_tf32", lambda: bool(matmul.allow_tf32), None),
        allow_fp16_reduced_precision_reduction=str(matmul.allow_fp16_reduced_precision_reduction),
        allow_bf16_reduced_precision_reduction=str(matmul.allow_bf16_reduced_precision_reduction),
        allow_fp16_accumulation=getattr(matmul, "allow_fp16_accumulation", None),
        float32_matmul_precision=str(torch.get_float32_matmul_precision()),
    )
    cuda_backend = backends.cuda
    sdpa = SdpaFlags(
        flash=bool(cuda_backend.flash_sdp_enabled()),
        mem_efficient=bool(cuda_backend.mem_efficient_sdp_enabled()),
        math=bool(cuda_backend.math_sdp_enabled()),
        cudnn=reader.get("sdpa.cudnn", lambda: bool(cuda_backend.cudnn_sdp_enabled()), None),
        fp16_bf16_reduction_math=reader.get(
            "sdpa.fp16_bf16_reduction_math",
            lambda: bool(cuda_backend.fp16_bf16_reduction_math_sdp_allowed()),
            None,
        ),
    )
    fill = reader.get(
        "deterministic.fill_uninitialized_memory",
        lambda: bool(torch.utils.deterministic.fill_uninitialized_memory),
        None,
    )
    determinism = Determinism(
        algorithms=bool(torch.are_deterministic_algorithms_enabled()),
        warn_only=bool(torch.is_deterministic_algorithms_warn_only_enabled()),
        debug_mode=int(torch.get_deterministic_debug_mode()),
        fill_uninitialized_memory=fill,
    )
    precisions = fp32_precisions(torch)
    devices, devices_reason = _devices(torch, env, cuda_built, initialized)
    version = torch.version
    return TorchSection(
        version=str(torch.__version__),
        cuda=getattr(version, "cuda", None),
        hip=getattr(version, "hip", None),
        git_version=getattr(version, "git_version", None),
        imported_by=imported_by,
        cuda_built=cuda_built,
        cuda_initialized=initialized,
        cuda_available=bool(torch.cuda.is_available()) if initialized else None,
        cuda_device_count=int(torch.cuda.device_count()) if initialized else None,
        nccl_version=_nccl(torch, reader),
        cudnn=cudnn,
        matmul=matmul_flags,
        fp32_precision=precisions,
        sdpa=sdpa,
        deterministic=determinism,
        num_threads=int(torch.get_num_threads()),
        num_interop_threads=int(torch.get_num_interop_threads()),
        default_dtype=str(torch.get_default_dtype()),
        cpu_capability=reader.get("cpu_capability", backends.cpu.get_cpu_capability, None),
        build=_build(torch, reader),
        compile=_compile(reader),
        effective=effective.resolve(
            fp32_precision=precisions,
            matmul_allow_tf32=matmul_flags.allow_tf32,
            cudnn_allow_tf32=cudnn.allow_tf32,
            cudnn_enabled=cudnn.enabled,
            cuda_built=cuda_built,
            devices=devices,
            devices_reason=devices_reason,
            env=env,
        ),
        unknown=dict(sorted(reader.unknown.items())),
    )


def collect(context: CaptureContext) -> TorchSection:
    torch, imported_by = import_torch(context)
    return read_torch(torch, context.env, imported_by)


COLLECTOR = Collector(
    name="torch",
    collect=collect,
    # A cold `import torch` (--torch) takes seconds, tens on a loaded host; reading flags takes
    # about a millisecond. The capture budget (--budget) still caps it.
    timeout_s=120.0,
    description="live PyTorch runtime flags and effective precision",
)
