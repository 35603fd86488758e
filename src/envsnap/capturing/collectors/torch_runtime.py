"""`torch`: the live PyTorch runtime flags, and the fp32 precision that actually runs.

Recorded only when torch is already imported by the capturing process (the in-job API), or when
the capture was asked to import it (`envsnap capture --torch`). It never initialises CUDA: the
calls below read global flags and library versions only. `torch.cuda.is_available()` would
initialise the CUDA driver, so it is asked only when CUDA is already initialised; otherwise the
devices for precision resolution come from NVML.
"""

from __future__ import annotations

import importlib
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, TypeVar

from envsnap.capturing.collectors.base import (
    CaptureContext,
    Collector,
    CollectorUnavailable,
    TorchHandle,
)
from envsnap.manifest import effective
from envsnap.manifest.records import (
    CompileSettings,
    CpuKernels,
    CudnnFlags,
    Determinism,
    EffectivePrecision,
    MatmulFlags,
    SdpaFlags,
    TorchBuild,
    TorchSection,
)

T = TypeVar("T")
NOT_IMPORTED = "torch is not imported by this process (use --torch to import it)"

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
# ISA features of torch.cpu.get_capabilities() that give oneDNN bf16, fp16 or tf32 kernels.
REDUCED_PRECISION_FEATURES = (
    "amx_bf16",
    "amx_fp16",
    "avx512_bf16",
    "avx512_fp16",
    "avx_ne_convert",
    "bf16",
    "sve_bf16",
)
INDUCTOR_KEYS = (
    "fallback_random",
    "deterministic",
    "emulate_precision_casts",
    "max_autotune",
    "max_autotune_gemm",
    "coordinate_descent_tuning",
    "force_disable_caches",
)


def _method(owner: Any, path: str) -> Callable[[], Any]:
    """`owner.<path>()` ('backends.cpu.get_cpu_capability'), looked up only when called: inside
    the reader's guard, so an API this torch lacks costs one field instead of the section."""

    def call() -> Any:
        target = owner
        for part in path.split("."):
            target = getattr(target, part)
        return target()

    return call


class _Reader:
    """Reads one torch value; a failure is recorded on that field and the default returned."""

    def __init__(self) -> None:
        self.unknown: dict[str, str] = {}

    def get(self, key: str, fn: Callable[[], T], default: T) -> T:
        try:
            return fn()
        except Exception as exc:  # torch raises RuntimeError, AttributeError, AssertionError...
            first_line = (str(exc).splitlines() or [""])[0][:200]
            self.unknown[key] = f"{type(exc).__name__}: {first_line}"
            return default

    def flag(self, key: str, fn: Callable[[], Any]) -> bool | None:
        """A boolean setting; null (with the reason) when this torch does not have it."""
        value = self.get(key, fn, None)
        return None if value is None else bool(value)


def import_torch(context: CaptureContext) -> tuple[ModuleType, Literal["job", "envsnap"]]:
    """The torch the capture settled on: the job's, or the one `--torch` imported."""
    handle = context.torch if context.torch is not None else resolve_torch(context)
    if handle.module is None or handle.imported_by is None:
        raise CollectorUnavailable(handle.reason or "torch is not available")
    return handle.module, handle.imported_by


def resolve_torch(context: CaptureContext, wanted: bool = True) -> TorchHandle:
    """Settle which torch a capture reads, before its collectors start.

    A torch the process already imported is the job's. Otherwise, when `--torch` asks for it
    (and the torch collector is `wanted`), torch is imported here, in a thread bounded by the
    capture budget: a cold import takes seconds and may hang on a broken install.
    """
    module = sys.modules.get("torch")
    if module is not None:
        return TorchHandle(module, "job")
    if not (wanted and context.config.import_torch):
        return TorchHandle(None, None, NOT_IMPORTED)
    outcome: dict[str, Any] = {}

    def load() -> None:
        try:
            outcome["module"] = importlib.import_module("torch")
        except Exception as exc:  # ImportError, or an OSError from a broken CUDA library
            outcome["error"] = f"torch is not installed ({exc})"

    thread = threading.Thread(target=load, name="envsnap-import-torch", daemon=True)
    thread.start()
    limit = min(COLLECTOR.timeout_s, context.remaining())
    thread.join(limit)
    if thread.is_alive():
        return TorchHandle(None, None, f"import torch did not finish within {limit:.1f} s")
    if "module" not in outcome:
        return TorchHandle(None, None, str(outcome.get("error", "import torch failed")))
    return TorchHandle(outcome["module"], "envsnap")


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
    arch_flags = getattr(getattr(torch, "_C", None), "_cuda_getArchFlags", None)
    arch = reader.get("build.cuda_arch_list", lambda: arch_flags() if arch_flags else "", "")
    backends = torch.backends
    return TorchBuild(
        blas=settings.get("BLAS_INFO") or None,
        lapack=settings.get("LAPACK_INFO") or None,
        onednn=onednn,
        openmp=openmp,
        mkl=reader.flag("build.mkl", _method(backends, "mkl.is_available")),
        mkldnn=reader.flag("build.mkldnn", _method(backends, "mkldnn.is_available")),
        cuda_arch_list=sorted(str(arch or "").split()),
        settings={key: settings[key] for key in BUILD_SETTING_KEYS if key in settings},
    )


def _cpu(torch: Any, reader: _Reader) -> CpuKernels:
    """oneDNN's switch and the CPU's reduced-precision kernels, as torch itself checks them."""
    capabilities = reader.get(
        "cpu.features", lambda: dict(torch.cpu.get_capabilities()), dict[str, Any]()
    )
    return CpuKernels(
        mkldnn_enabled=reader.flag("cpu.mkldnn_enabled", lambda: torch.backends.mkldnn.enabled),
        bf16=reader.flag("cpu.bf16", _method(torch, "ops.mkldnn._is_mkldnn_bf16_supported")),
        amx_fp16=reader.flag("cpu.amx_fp16", _method(torch, "cpu._is_amx_fp16_supported")),
        features=[name for name in REDUCED_PRECISION_FEATURES if capabilities.get(name) is True],
    )


def _compile() -> CompileSettings | None:
    """Inductor's settings, or None when torch._inductor was never imported: then nothing in
    this process has compiled yet (a fact, not a gap; TORCHINDUCTOR_* are in the env section)."""
    # Importing torch._inductor costs seconds; read it only when the job already has.
    config = sys.modules.get("torch._inductor.config")
    if config is None:
        return None
    values = {key: getattr(config, key, None) for key in INDUCTOR_KEYS}
    return CompileSettings(**{k: v if isinstance(v, bool) else None for k, v in values.items()})


def _compiled() -> bool | None:
    """Whether Dynamo has compiled a graph in this process yet; False when it was never imported.

    Read from the counters Dynamo keeps (`torch._dynamo.utils.counters`), without importing it
    and without touching a missing key (the counters are defaultdicts: a lookup would add it).
    """
    utils = sys.modules.get("torch._dynamo.utils")
    if utils is None:
        return False
    try:
        stats = dict(utils.counters).get("stats") or {}
        return int(dict(stats).get("unique_graphs", 0)) > 0
    except Exception:  # another torch's counters: not recorded rather than guessed
        return None


def _nccl(torch: Any, reader: _Reader) -> str | None:
    if not hasattr(getattr(torch, "_C", None), "_nccl_version"):
        reader.unknown["nccl_version"] = "this torch is built without NCCL"
        return None
    version = reader.get("nccl_version", _method(torch, "cuda.nccl.version"), None)
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
    from envsnap.capturing.collectors.gpu import visible_devices  # NVML, without initialising CUDA

    return visible_devices(env)


def _cudnn(backends: Any, reader: _Reader) -> CudnnFlags:
    cudnn = backends.cudnn
    return CudnnFlags(
        enabled=reader.flag("cudnn.enabled", lambda: cudnn.enabled),
        benchmark=reader.flag("cudnn.benchmark", lambda: cudnn.benchmark),
        deterministic=reader.flag("cudnn.deterministic", lambda: cudnn.deterministic),
        allow_tf32=reader.flag("cudnn.allow_tf32", lambda: cudnn.allow_tf32),
        available=reader.flag("cudnn.available", _method(cudnn, "is_available")),
        version=reader.get("cudnn.version", _method(cudnn, "version"), None),
    )


def _matmul(torch: Any, reader: _Reader) -> MatmulFlags:
    matmul = torch.backends.cuda.matmul

    def text(key: str, fn: Callable[[], Any]) -> str | None:
        value = reader.get(key, fn, None)
        return None if value is None else str(value)

    return MatmulFlags(
        allow_tf32=reader.flag("matmul.allow_tf32", lambda: matmul.allow_tf32),
        allow_fp16_reduced_precision_reduction=text(
            "matmul.allow_fp16_reduced_precision_reduction",
            lambda: matmul.allow_fp16_reduced_precision_reduction,
        ),
        allow_bf16_reduced_precision_reduction=text(
            "matmul.allow_bf16_reduced_precision_reduction",
            lambda: matmul.allow_bf16_reduced_precision_reduction,
        ),
        # Added in torch 2.7: absent before, which is not a failure worth a reason.
        allow_fp16_accumulation=getattr(matmul, "allow_fp16_accumulation", None),
        float32_matmul_precision=text(
            "matmul.float32_matmul_precision", _method(torch, "get_float32_matmul_precision")
        ),
    )


def _sdpa(backends: Any, reader: _Reader) -> SdpaFlags:
    # Scaled-dot-product attention arrived in torch 2.0; cuDNN attention and the reduction
    # switch later. Each flag is read on its own so one missing API costs only its field.
    cuda = backends.cuda
    return SdpaFlags(
        flash=reader.flag("sdpa.flash", _method(cuda, "flash_sdp_enabled")),
        mem_efficient=reader.flag("sdpa.mem_efficient", _method(cuda, "mem_efficient_sdp_enabled")),
        math=reader.flag("sdpa.math", _method(cuda, "math_sdp_enabled")),
        cudnn=reader.flag("sdpa.cudnn", _method(cuda, "cudnn_sdp_enabled")),
        fp16_bf16_reduction_math=reader.flag(
            "sdpa.fp16_bf16_reduction_math",
            _method(cuda, "fp16_bf16_reduction_math_sdp_allowed"),
        ),
    )


def _determinism(torch: Any, reader: _Reader) -> Determinism:
    debug_mode = reader.get(
        "deterministic.debug_mode", lambda: int(torch.get_deterministic_debug_mode()), None
    )
    return Determinism(
        algorithms=reader.flag(
            "deterministic.algorithms", _method(torch, "are_deterministic_algorithms_enabled")
        ),
        warn_only=reader.flag(
            "deterministic.warn_only",
            _method(torch, "is_deterministic_algorithms_warn_only_enabled"),
        ),
        debug_mode=debug_mode,
        fill_uninitialized_memory=reader.flag(
            "deterministic.fill_uninitialized_memory",
            lambda: torch.utils.deterministic.fill_uninitialized_memory,
        ),
    )


@dataclass(frozen=True)
class _CudaState:
    built: bool
    initialized: bool
    available: bool | None
    device_count: int | None


def _cuda_state(torch: Any, reader: _Reader) -> _CudaState:
    """Whether torch has CUDA, and, only when CUDA is already initialised, what it sees."""
    built = bool(reader.get("cuda_built", _method(torch, "backends.cuda.is_built"), False))
    initialized = bool(reader.get("cuda_initialized", _method(torch, "cuda.is_initialized"), False))
    if not initialized:
        reader.unknown["cuda_available"] = (
            "not probed: CUDA is not initialised and probing would initialise the driver"
        )
        return _CudaState(built, False, None, None)
    available = reader.flag("cuda_available", _method(torch, "cuda.is_available"))
    count = reader.get("cuda_device_count", lambda: int(torch.cuda.device_count()), None)
    return _CudaState(built, True, available, count)


def _effective(
    torch: Any,
    env: Mapping[str, str],
    cuda: _CudaState,
    parts: tuple[dict[str, str], MatmulFlags, CudnnFlags],
    reader: _Reader,
) -> EffectivePrecision:
    precisions, matmul, cudnn = parts
    unread: tuple[list[effective.Device] | None, str] = (None, "devices could not be read")
    devices, devices_reason = reader.get(
        "effective.devices", lambda: _devices(torch, env, cuda.built, cuda.initialized), unread
    )
    return effective.resolve(
        fp32_precision=precisions,
        matmul_allow_tf32=matmul.allow_tf32,
        cudnn_allow_tf32=cudnn.allow_tf32,
        cudnn_enabled=cudnn.enabled,
        cuda_built=cuda.built,
        devices=devices,
        devices_reason=devices_reason,
        env=env,
    )


def read_torch(
    torch: Any, env: Mapping[str, str], imported_by: Literal["job", "envsnap"]
) -> TorchSection:
    """The section from a torch module (1.13 onwards), without initialising CUDA.

    Every attribute is read on its own: one the running torch lacks (SDPA before 2.0,
    fp32_precision before 2.9...) is null with the reason in `unknown`, never an error.
    """
    reader = _Reader()
    cuda = _cuda_state(torch, reader)
    cudnn = _cudnn(torch.backends, reader)
    matmul = _matmul(torch, reader)
    precisions = fp32_precisions(torch)
    version = getattr(torch, "version", None)
    return TorchSection(
        version=str(torch.__version__),
        cuda=getattr(version, "cuda", None),
        hip=getattr(version, "hip", None),
        git_version=getattr(version, "git_version", None),
        imported_by=imported_by,
        cuda_built=cuda.built,
        cuda_initialized=cuda.initialized,
        cuda_available=cuda.available,
        cuda_device_count=cuda.device_count,
        nccl_version=_nccl(torch, reader),
        cudnn=cudnn,
        matmul=matmul,
        fp32_precision=precisions,
        sdpa=_sdpa(torch.backends, reader),
        deterministic=_determinism(torch, reader),
        num_threads=reader.get("num_threads", lambda: int(torch.get_num_threads()), None),
        num_interop_threads=reader.get(
            "num_interop_threads", lambda: int(torch.get_num_interop_threads()), None
        ),
        default_dtype=reader.get("default_dtype", lambda: str(torch.get_default_dtype()), None),
        cpu_capability=reader.get(
            "cpu_capability", _method(torch, "backends.cpu.get_cpu_capability"), None
        ),
        cpu=_cpu(torch, reader),
        build=_build(torch, reader),
        compile=_compile(),
        compiled=_compiled(),
        effective=_effective(torch, env, cuda, (precisions, matmul, cudnn), reader),
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
