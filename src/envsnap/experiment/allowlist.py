"""Which environment variables `run --as` and `bisect` may take from a manifest, and with what values.

A manifest is untrusted: whoever wrote it chooses every name and value in it, and a digest only
proves that nobody edited it since. Many variables make a program load or run code
(`PYTHONWARNINGS` imports a module, `BROWSER` names a program, `BASH_ENV` a script, `LD_AUDIT`
a library, `GIT_CONFIG_PARAMETERS` can set `core.fsmonitor`), so a recorded variable is applied
only when it is in `ALLOWED` (the variables known to change numerical results, each with a
check of its value) and not matched by `DENIED`, which is checked last and wins over any table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_VALUE_CHARS = 64
NOT_LISTED = "not in envsnap's table of variables that change results"


@dataclass(frozen=True)
class ValueRule:
    """A check of a variable's value, and the accepted forms in words (for the plan and docs)."""

    accepts: str
    check: Callable[[str], bool]


def _pattern(regex: str, accepts: str, *, flags: int = 0) -> ValueRule:
    # ASCII: with IGNORECASE alone, `k` would also match the Kelvin sign, `\w` any letter.
    compiled = re.compile(regex, flags | re.ASCII)
    return ValueRule(accepts, lambda value: compiled.fullmatch(value) is not None)


def _decimal(value: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²' (int() refuses it) and '١٢' (int()
    reads it, but C code such as Python's own PYTHONHASHSEED parsing does not)."""
    return value.isascii() and value.isdigit()


def _integer(low: int, high: int) -> ValueRule:
    def check(value: str) -> bool:
        return _decimal(value) and len(value) <= 10 and low <= int(value) <= high

    return ValueRule(f"an integer {low}..{high}", check)


SWITCH = _pattern(r"[01]", "0 or 1")
TRUTH = _pattern(r"0|1|true|false|yes|no|on|off", "0, 1, true, false, yes, no, on, off",
                 flags=re.IGNORECASE)  # fmt: skip
THREADS = _integer(1, 65536)
# OMP_NUM_THREADS may give one count per nesting level.
THREAD_LIST = _pattern(r"[1-9][0-9]{0,4}(,[1-9][0-9]{0,4}){0,7}", "thread counts, e.g. 8 or 8,2")
COUNT = _integer(0, 2**31 - 1)
# A cuBLAS workspace is one or more `:SIZE_KIB:COUNT` pairs.
WORKSPACE = _pattern(r"(:[0-9]{1,7}:[0-9]{1,4}){1,4}", ":SIZE:COUNT, e.g. :4096:8")
HASH_SEED = ValueRule(
    "random, or an integer 0..4294967295",
    lambda value: value == "random" or (_decimal(value) and int(value) <= 2**32 - 1),
)
ISA = _pattern(r"[A-Za-z][A-Za-z0-9_]{0,31}", "an instruction-set name, e.g. AVX2")
CORE_NAME = _pattern(r"[A-Za-z][A-Za-z0-9_]{0,31}", "a core name, e.g. Haswell or SkylakeX")
MKL_BRANCH = _pattern(r"[A-Za-z][A-Za-z0-9_]{0,31}(,STRICT)?", "a branch, e.g. AVX2 or AUTO,STRICT",
                      flags=re.IGNORECASE)  # fmt: skip
# NCCL_ALGO/NCCL_PROTO: names, `^` to exclude, and per-collective `op:names;...` lists.
NCCL_NAMES = _pattern(r"\^?[A-Za-z0-9]+([,:;]\^?[A-Za-z0-9]+){0,15}", "names, e.g. Ring or ^NVLS")


@dataclass(frozen=True)
class Allowed:
    """One variable that may be applied: what it changes, the citation, and its value check."""

    changes: str
    source: str
    value: ValueRule


def _each(
    names: tuple[str, ...], changes: str, source: str, value: ValueRule
) -> dict[str, Allowed]:
    return {name: Allowed(changes, source, value) for name in names}


# The one table: every variable `run --as` and `bisect` may apply, what it changes, a public
# source for that, and the values accepted.
ALLOWED: dict[str, Allowed] = {
    "PYTHONHASHSEED": Allowed(
        "str and bytes hashes: set iteration order",
        "Python docs, PYTHONHASHSEED; NVIDIA/framework-reproducibility",
        HASH_SEED,
    ),
    "CUBLAS_WORKSPACE_CONFIG": Allowed(
        "cuBLAS workspaces: deterministic GEMMs across streams",
        "cuBLAS docs, 'Results reproducibility'; pytorch/pytorch#109856",
        WORKSPACE,
    ),
    "CUBLASLT_WORKSPACE_SIZE": Allowed(
        "cuBLASLt workspace: which GEMM algorithms (split-K) run",
        "pytorch/pytorch#120925, #181944",
        COUNT,
    ),
    **_each(("TORCH_BLAS_PREFER_CUBLASLT", "DISABLE_ADDMM_CUDA_LT"),
            "cuBLAS or cuBLASLt for matmul and addmm (bias epilogue)",
            "pytorch/pytorch#180875, #181737", SWITCH),
    **_each(("NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"),
            "TF32 in NVIDIA libraries, whatever torch's flags say",
            "PyTorch docs, CUDA environment variables; Project-MONAI/MONAI#6754", SWITCH),
    "CUDA_LAUNCH_BLOCKING": Allowed(
        "synchronous kernel launches",
        "transformers trainer_utils.enable_full_determinism",
        SWITCH,
    ),
    "TORCH_CUDNN_V8_API_DISABLED": Allowed(
        "cuDNN v7 API instead of v8: another algorithm choice",
        "PyTorch docs, CUDA environment variables; pytorch/pytorch#91117",
        SWITCH,
    ),
    "TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT": Allowed(
        "cuDNN v8 execution-plan cache size",
        "PyTorch docs, CUDA environment variables",
        COUNT,
    ),
    **_each(("TORCH_CUDNN_SDPA_DEPRIORITIZED", "TORCH_CUDNN_SDPA_PREFERRED"),
            "whether attention runs on cuDNN's SDPA kernel",
            "ATen sdp_utils.cpp check_prefer_cudnn_attention; pytorch/pytorch#138522", SWITCH),
    "OMP_NUM_THREADS": Allowed(
        "CPU thread count: how reductions are split",
        "pytorch/pytorch#2201, #88718",
        THREAD_LIST,
    ),
    "MKL_NUM_THREADS": Allowed(
        "oneMKL thread count: how reductions are split",
        "pytorch/pytorch#2201; oneMKL guide, 'Reproducibility Conditions'",
        THREADS,
    ),
    **_each(("OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"),
            "BLAS or numexpr thread count: how reductions are split",
            "oneMKL guide, 'Reproducibility Conditions' (same mechanism)", THREADS),
    **_each(("MKL_DYNAMIC", "OMP_DYNAMIC"), "thread counts that vary at run time",
            "oneMKL guide, 'Reproducibility Conditions'", TRUTH),
    "KMP_DETERMINISTIC_REDUCTION": Allowed(
        "a fixed order for OpenMP reductions (Intel OpenMP)",
        "Intel compiler guide, OpenMP 'Supported Environment Variables'",
        TRUTH,
    ),
    "MKL_CBWR": Allowed(
        "oneMKL code branch",
        "oneMKL guide, 'Conditional Numerical Reproducibility'",
        MKL_BRANCH,
    ),
    "MKL_ENABLE_INSTRUCTIONS": Allowed(
        "the instruction set oneMKL dispatches to",
        "oneMKL guide, 'Instruction Set-Specific Dispatching'",
        ISA,
    ),
    **_each(("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"),
            "the instruction set oneDNN kernels use",
            "oneDNN docs, 'CPU Dispatcher Control'", ISA),
    # numpy's NPY_DISABLE_CPU_FEATURES / NPY_ENABLE_CPU_FEATURES are not applied: numpy
    # refuses both at once, a baseline feature, or a feature this CPU lacks, at import, so B's
    # value can break A's job instead of reproducing B's kernels.
    "OPENBLAS_CORETYPE": Allowed(
        "the CPU kernels a DYNAMIC_ARCH OpenBLAS uses",
        "OpenMathLib/OpenBLAS README",
        CORE_NAME,
    ),
    "ATEN_CPU_CAPABILITY": Allowed(
        "the instruction set torch's CPU kernels dispatch to",
        "ATen DispatchStub.cpp; torch.backends.cpu.get_cpu_capability",
        ISA,
    ),
    **_each(("NCCL_ALGO", "NCCL_PROTO"), "NCCL algorithm or protocol: summation order",
            "NVIDIA/nccl#1055, #754; pytorch/pytorch#156381", NCCL_NAMES),
    "NCCL_NVLS_ENABLE": Allowed(
        "NVLink SHARP all-reduce, not deterministic between calls",
        "NVIDIA/nccl#1497",
        SWITCH,
    ),
    **_each(("NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS"), "NCCL channels: summation order",
            "NVIDIA/nccl#1055", COUNT),
    **_each(("ROCBLAS_INTERNAL_FP16_ALT_IMPL", "MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL",
             "HIPBLASLT_ALLOW_TF32", "TORCH_BLAS_PREFER_HIPBLASLT"),
            "ROCm fp16 and TF32 implementation choice",
            "PyTorch docs, numerical accuracy (MI200, MI300); ROCm/pytorch#2053", SWITCH),
    **_each(("TORCHINDUCTOR_EMULATE_PRECISION_CASTS", "TORCHINDUCTOR_EMULATE_DIVISION_ROUNDING"),
            "Inductor rounding as in eager mode",
            "torch/_inductor/config.py; pytorch/pytorch#183761", SWITCH),
    "TORCHINDUCTOR_DETERMINISTIC": Allowed(
        "Inductor deterministic mode: no autotuning that changes numerics",
        "pytorch/pytorch#163589",
        SWITCH,
    ),
    "FLASH_ATTENTION_DETERMINISTIC": Allowed(
        "deterministic flash-attention backward",
        "transformers trainer_utils.enable_full_determinism",
        SWITCH,
    ),
    "NVTE_ALLOW_NONDETERMINISTIC_ALGO": Allowed(
        "Transformer Engine's non-deterministic kernels",
        "Megatron Core docs, 'Deterministic Training'",
        SWITCH,
    ),
    "TF_ENABLE_ONEDNN_OPTS": Allowed(
        "TensorFlow's oneDNN kernels: another computation order",
        "TensorFlow start-up notice 'oneDNN custom operations are on'",
        SWITCH,
    ),
    "TF_DETERMINISTIC_OPS": Allowed(
        "TensorFlow deterministic GPU ops",
        "TensorFlow 2.8 release notes (enable_op_determinism)",
        TRUTH,
    ),
    "TF_CUDNN_DETERMINISTIC": Allowed(
        "TensorFlow deterministic cuDNN algorithms",
        "NVIDIA/framework-reproducibility",
        TRUTH,
    ),
}  # fmt: skip

# Never applied, whatever a table says: variables that make a program load or run code, or
# change where programs, libraries, configuration and caches are found. Checked last.
DENIED: tuple[tuple[str, str], ...] = (
    (r"ENVSNAP_\w*", "envsnap's own settings: set by envsnap for this run"),
    (r"(LD|DYLD)_\w*", "the dynamic loader: loads libraries into every program"),
    (r"\w*PATH", "a search path: where programs or libraries are found"),
    (r"PYTHON(?!HASHSEED$)\w*", "Python start-up: paths, start-up files, imported modules"),
    (
        r"BASH_ENV|ENV|BASH_FUNC_\S*|SHELLOPTS|BASHOPTS|IFS|PS4|PROMPT_COMMAND|SHELL",
        "shell start-up: runs commands in every shell",
    ),
    (
        r"BROWSER|EDITOR|VISUAL|PAGER|MANPAGER|LESSOPEN|LESSCLOSE|TERMINAL|\w*ASKPASS",
        "names a program that other programs start",
    ),
    (r"GIT_\w*", "git: configuration, hooks and helper programs"),
    (
        r"PERL5\w*|PERLLIB|RUBY\w*|GEM_\w*|NODE_\w*|NPM_\w*|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS"
        r"|JDK_JAVA_OPTIONS|CLASSPATH",
        "another interpreter's start-up: loads code",
    ),
    (
        r"\w*PLUGIN\w*|\w*HOOK\w*|\w*PRELOAD\w*|\w*_TOOL(S|_LIBRARIES)?|\w*INJECTION\w*",
        "loads plugins, hooks or tool libraries",
    ),
    (r"(?i:\w*_proxy)", "a network proxy"),
    (
        r"TORCHINDUCTOR_(?!(EMULATE_PRECISION_CASTS|EMULATE_DIVISION_ROUNDING|DETERMINISTIC)$)\w*"
        r"|TRITON_\w*",
        "torch.compile caches, compilers and paths (its three rounding switches aside)",
    ),
    (
        r"CC|CXX|CPP|FC|F77|F90|AR|AS|LD|NM|NVCC\w*|CUDAHOSTCXX|\w*FLAGS|LDLIBS|MAKE\w*",
        "a compiler, linker or their flags",
    ),
    (
        r"HOME|\w*_HOME|TMPDIR|TMP|TEMP|XDG_\w*|USER|LOGNAME",
        "this machine's user, home or temporary directories",
    ),
    (r"PIP_\w*|UV_\w*|CONDA\w*|MAMBA\w*|VIRTUAL_ENV\w*", "a package installer or environment"),
    (
        r"GLIBC_TUNABLES|MALLOC_\w*|OPENSSL_\w*|SSL_\w*|GCONV\w*|LOCPATH|NLSPATH",
        "the C library or TLS configuration: loads modules or files",
    ),
)
_DENIED = tuple((re.compile(pattern), why) for pattern, why in DENIED)


def denied(name: str) -> str | None:
    """Why `name` is never applied from a manifest, or None when the denylist does not match."""
    for pattern, why in _DENIED:
        if pattern.fullmatch(name):
            return why
    return None


def value_problem(value: object) -> str | None:
    """Why a recorded value can never be applied (not text, control characters, a path)."""
    if not isinstance(value, str):
        return "the recorded value is not text"
    if not value.isprintable():
        return "the value has control or invisible characters"
    if len(value) > MAX_VALUE_CHARS:
        return f"the value is longer than {MAX_VALUE_CHARS} characters"
    if "/" in value or "\\" in value or value.startswith(("~", ".")):
        return "the value looks like a path"
    return None


def refusal(name: str, value: object) -> str | None:
    """Why B's `name=value` is not applied here, or None when it may be: a name of `ALLOWED`
    whose value passes its check, and that no denylist entry matches (checked last)."""
    rule = ALLOWED.get(name)
    why = NOT_LISTED if rule is None else value_problem(value)
    if why is None and rule is not None and not rule.value.check(str(value)):
        why = f"the value is not {rule.value.accepts}"
    return denied(name) or why


def may_unset(name: str) -> bool:
    """Whether a variable of this machine may be unset to match a run that lacked it."""
    return name in ALLOWED and denied(name) is None
