"""The `torch` section: the live PyTorch runtime state, and the precision that actually runs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section

YesNoUnknown = Literal["yes", "no", "unknown"]


class CudnnFlags(Model):
    enabled: bool | None = Field(description="torch.backends.cudnn.enabled.")
    benchmark: bool | None = Field(
        description="torch.backends.cudnn.benchmark (autotuned algorithms)."
    )
    deterministic: bool | None = Field(description="torch.backends.cudnn.deterministic.")
    allow_tf32: bool | None = Field(
        description="torch.backends.cudnn.allow_tf32 (legacy TF32 flag); null when torch refuses "
        "to answer because the legacy and fp32_precision APIs were mixed."
    )
    available: bool | None = Field(description="torch.backends.cudnn.is_available().")
    version: int | None = Field(
        description="torch.backends.cudnn.version(): the cuDNN torch loaded, e.g. 90100."
    )


class MatmulFlags(Model):
    allow_tf32: bool | None = Field(
        description="torch.backends.cuda.matmul.allow_tf32 (legacy flag); null when torch refuses "
        "to answer because the legacy and fp32_precision APIs were mixed."
    )
    allow_fp16_reduced_precision_reduction: str | None = Field(
        description="torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction, as text "
        "(a bool, or the (allow_reduced, allow_splitk) tuple of newer releases)."
    )
    allow_bf16_reduced_precision_reduction: str | None = Field(
        description="torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction, as text; "
        "null where this torch lacks it."
    )
    allow_fp16_accumulation: bool | None = Field(
        description="torch.backends.cuda.matmul.allow_fp16_accumulation; null before it existed."
    )
    float32_matmul_precision: str | None = Field(
        description="torch.get_float32_matmul_precision(): 'highest', 'high' or 'medium'."
    )


class SdpaFlags(Model):
    flash: bool | None = Field(
        description="torch.backends.cuda.flash_sdp_enabled(); null before torch 2.0 (no SDPA)."
    )
    mem_efficient: bool | None = Field(
        description="torch.backends.cuda.mem_efficient_sdp_enabled()."
    )
    math: bool | None = Field(description="torch.backends.cuda.math_sdp_enabled().")
    cudnn: bool | None = Field(description="torch.backends.cuda.cudnn_sdp_enabled().")
    fp16_bf16_reduction_math: bool | None = Field(
        description="torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()."
    )


class Determinism(Model):
    algorithms: bool | None = Field(description="torch.are_deterministic_algorithms_enabled().")
    warn_only: bool | None = Field(
        description="torch.is_deterministic_algorithms_warn_only_enabled()."
    )
    debug_mode: int | None = Field(
        description="torch.get_deterministic_debug_mode(): 0, 1 (warn), 2."
    )
    fill_uninitialized_memory: bool | None = Field(
        description="torch.utils.deterministic.fill_uninitialized_memory."
    )


class TorchBuild(Model):
    blas: str | None = Field(description="BLAS_INFO from torch.__config__.show().")
    lapack: str | None = Field(description="LAPACK_INFO from torch.__config__.show().")
    onednn: str | None = Field(description="oneDNN (MKL-DNN) version torch was built with.")
    openmp: str | None = Field(description="OpenMP version torch was built with.")
    mkl: bool | None = Field(description="torch.backends.mkl.is_available().")
    mkldnn: bool | None = Field(description="torch.backends.mkldnn.is_available().")
    cuda_arch_list: list[str] = Field(
        default_factory=list,
        description="GPU architectures compiled into the build (sm_80...), sorted; empty on CPU.",
    )
    settings: dict[str, str] = Field(
        default_factory=dict,
        description="Selected 'Build settings' (USE_CUDA, USE_CUDNN, USE_NCCL, USE_MKLDNN, "
        "USE_OPENMP, BUILD_TYPE, TORCH_VERSION, CUDA_VERSION, CUDNN_VERSION...).",
    )


class CompileSettings(Model):
    """Inductor settings read from an already imported torch._inductor.config."""

    fallback_random: bool | None = Field(description="torch._inductor.config.fallback_random.")
    deterministic: bool | None = Field(
        description="torch._inductor.config.deterministic; null where the option does not exist."
    )
    emulate_precision_casts: bool | None = Field(
        description="torch._inductor.config.emulate_precision_casts."
    )
    max_autotune: bool | None = Field(description="torch._inductor.config.max_autotune.")
    max_autotune_gemm: bool | None = Field(description="torch._inductor.config.max_autotune_gemm.")
    coordinate_descent_tuning: bool | None = Field(
        description="torch._inductor.config.coordinate_descent_tuning."
    )
    force_disable_caches: bool | None = Field(
        description="torch._inductor.config.force_disable_caches."
    )


class CpuKernels(Model):
    """What torch's CPU side can run in reduced precision: oneDNN on or off, and its kernels."""

    mkldnn_enabled: bool | None = Field(
        default=None,
        description="torch.backends.mkldnn.enabled: oneDNN (MKLDNN) kernels in use; the bf16 and "
        "tf32 modes of fp32 math need it.",
    )
    bf16: bool | None = Field(
        default=None,
        description="torch.ops.mkldnn._is_mkldnn_bf16_supported(): oneDNN has bf16 kernels for "
        "this CPU (avx512bw/vl/dq, avx_ne_convert or Arm bf16), the check torch makes before "
        "running fp32 math in bf16.",
    )
    amx_fp16: bool | None = Field(
        default=None,
        description="torch.cpu._is_amx_fp16_supported(): the CPU has AMX-FP16, which oneDNN's "
        "tf32 mode of fp32 matmul needs.",
    )
    features: list[str] = Field(
        default_factory=list,
        description="Reduced-precision ISA features torch.cpu.get_capabilities() reports "
        "(avx512_bf16, avx512_fp16, amx_bf16, amx_fp16, avx_ne_convert, bf16, sve_bf16), sorted.",
    )


class EffectiveTf32(Model):
    """Whether an fp32 operation family runs on TF32 tensor cores, with the reason."""

    tf32: YesNoUnknown = Field(description="'yes', 'no' or 'unknown'.")
    internal_precision: str | None = Field(
        description="What fp32 math runs as: 'ieee', 'tf32', or null when unknown."
    )
    reason: str = Field(description="Which setting, override or hardware fact decided it.")


class EffectivePrecision(Model):
    """What runs, resolved from torch flags, GPU capability and environment overrides."""

    matmul_fp32: EffectiveTf32 = Field(description="fp32 matmul on CUDA (cuBLAS).")
    conv_fp32: EffectiveTf32 = Field(description="fp32 convolutions on CUDA (cuDNN).")
    devices: list[str] = Field(
        default_factory=list,
        description="Devices considered, as 'name (CC x.y)', in CUDA ordinal order.",
    )
    overrides: dict[str, str] = Field(
        default_factory=dict,
        description="TF32 override variables that were set (NVIDIA_TF32_OVERRIDE, "
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE).",
    )


class TorchSection(Section):
    version: str = Field(description="torch.__version__.")
    cuda: str | None = Field(description="torch.version.cuda.")
    hip: str | None = Field(description="torch.version.hip.")
    git_version: str | None = Field(description="torch.version.git_version.")
    imported_by: Literal["job", "envsnap"] = Field(
        description="'job' when torch was already imported by the capturing process; "
        "'envsnap' when the capture imported it (--torch)."
    )
    cuda_built: bool = Field(description="torch.backends.cuda.is_built().")
    cuda_initialized: bool = Field(
        description="torch.cuda.is_initialized() at capture time (capture never initialises it)."
    )
    cuda_available: bool | None = Field(
        description="torch.cuda.is_available(); only probed when CUDA was already initialised, "
        "because probing initialises the CUDA driver; null otherwise."
    )
    cuda_device_count: int | None = Field(
        description="torch.cuda.device_count() when CUDA was already initialised; else null."
    )
    nccl_version: str | None = Field(description="torch.cuda.nccl.version() as 'x.y.z'.")
    cudnn: CudnnFlags = Field(description="torch.backends.cudnn flags.")
    matmul: MatmulFlags = Field(description="torch.backends.cuda.matmul flags.")
    fp32_precision: dict[str, str] = Field(
        default_factory=dict,
        description="The fp32_precision settings of torch >= 2.9 keyed by backend path "
        "('generic', 'cuda.matmul', 'cudnn', 'cudnn.conv', 'cudnn.rnn', 'mkldnn', "
        "'mkldnn.matmul'...); empty on older torch.",
    )
    sdpa: SdpaFlags = Field(description="Which scaled-dot-product attention backends are enabled.")
    deterministic: Determinism = Field(description="Deterministic-algorithm settings.")
    num_threads: int | None = Field(description="torch.get_num_threads().")
    num_interop_threads: int | None = Field(description="torch.get_num_interop_threads().")
    default_dtype: str | None = Field(
        description="torch.get_default_dtype(), e.g. 'torch.float32'."
    )
    cpu_capability: str | None = Field(
        description="torch.backends.cpu.get_cpu_capability(): DEFAULT, AVX2, AVX512, SVE256..."
    )
    cpu: CpuKernels | None = Field(
        default=None,
        description="oneDNN and the CPU's reduced-precision kernels; with fp32_precision they "
        "decide whether fp32 math on the CPU runs as bf16 (null in manifests before it existed).",
    )
    build: TorchBuild = Field(description="How this torch was built (torch.__config__).")
    compile: CompileSettings | None = Field(
        description="Inductor settings when the job imported torch._inductor; null otherwise "
        "(the TORCHINDUCTOR_* variables are in the env section)."
    )
    compiled: bool | None = Field(
        default=None,
        description="Whether torch.compile (Dynamo) had compiled a graph in this process when it "
        "was captured (its unique_graphs counter): false at job start and in eager jobs, which "
        "import Dynamo too (torch.optim does); null where not recorded (older manifests, imports).",
    )
    effective: EffectivePrecision = Field(
        description="The precision that actually runs, resolved from flags, GPU and env."
    )
