"""Rules for the software stack: driver, CUDA libraries, torch and packages."""

from __future__ import annotations

from envsnap.diff.catalog.refs import CUBLAS_REPRO, CUDNN_REPRO, ENV, NUM, PKG, RANDOMNESS_MD
from envsnap.diff.rules import Rule

# Audio and video decoders and resamplers a data loader may pick: installing one changes which
# backend decodes (datasets 4.0 decodes audio with torchcodec where 3.x used soundfile).
# torchcodec's releases follow torch's, as torchaudio's do: its version is the torch family's.
_DECODERS = "soundfile,audioread,av,decord,soxr,resampy"

RULES: tuple[Rule, ...] = (
    Rule(
        id="stack.cuda-build",
        match=(
            f"{PKG}.torch.version",
            "cuda_stack.torch_version",
            "torch.version",
        ),
        when=("local",),
        category="stack",
        severity=("high", "medium", "low"),
        title="torch CUDA build changed (local version tag)",
        why="the same torch release built for another CUDA (+cu118 vs +cu121 vs +cpu) vendors "
        "other cuBLAS, cuDNN and NCCL binaries; bitwise results are not guaranteed across "
        "toolkits.",
        fix="Pin the full wheel tag and every nvidia-* package version.",
        refs=(f"{NUM} D1", CUBLAS_REPRO, "pytorch/pytorch#114952"),
        gpu_only=True,
        primary=(f"{PKG}.torch.version",),
        # The wheel's CUDA tag and the toolkit it names are one cause: one finding.
        merge="cuda-variant",
    ),
    Rule(
        id="stack.cuda-toolkit",
        match=(
            "cuda_stack.{torch_build,torch_cuda,torch_hip}",
            "torch.{cuda,hip,cuda_built}",
            f"{PKG}.nvidia-cuda-*.version",
            "cuda_stack.libraries.{cuda_runtime,cuda_nvrtc,nvjitlink}.**",
            # A conda torch loads the environment's CUDA toolkit package.
            "packages.conda.{cudatoolkit,cuda-toolkit,cuda-runtime,cuda-cudart,cuda-version}.version",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="CUDA toolkit changed",
        why="bitwise reproducibility is not guaranteed across CUDA toolkit versions; the "
        "wheel's CUDA variant changes every vendored library.",
        fix="Pin the CUDA variant of torch and log torch.version.cuda.",
        refs=(f"{NUM} D1", CUBLAS_REPRO),
        gpu_only=True,
        merge="cuda-variant",
    ),
    Rule(
        id="stack.cudnn",
        match=(
            "cuda_stack.libraries.cudnn.{version,selected}",
            "cuda_stack.libraries.cudnn.selected.{version,source,package}",
            "torch.cudnn.version",
            f"{PKG}.nvidia-cudnn-*.version",
            "packages.conda.cudnn.version",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="cuDNN version changed",
        why="cuDNN heuristics and kernels change between releases (9.1 surfaced ~2e-4 "
        "mismatches); reproducibility is promised only within a version.",
        fix="Pin the cuDNN wheel and record torch.backends.cudnn.version() at run time.",
        refs=(f"{NUM} C6", CUDNN_REPRO, "pytorch/pytorch#127984"),
        gpu_only=True,
        specificity=1,
    ),
    Rule(
        id="stack.cublas",
        match=(
            "cuda_stack.libraries.{cublas,cublaslt}.{version,selected}",
            "cuda_stack.libraries.{cublas,cublaslt}.selected.{version,source,package}",
            f"{PKG}.nvidia-cublas-*.version",
            f"{PKG}.nvidia-cublas.version",  # the CUDA 13 wheel has no -cuXX suffix (torch cu130 pins it)
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="cuBLAS version changed",
        why="cuBLAS guarantees bitwise results only for the same toolkit version.",
        fix="Pin nvidia-cublas with the torch wheel.",
        refs=(f"{NUM} D1", CUBLAS_REPRO),
        gpu_only=True,
        specificity=1,
    ),
    Rule(
        id="stack.nccl",
        match=(
            "cuda_stack.libraries.nccl.{version,selected}",
            "cuda_stack.libraries.nccl.selected.{version,source,package}",
            "torch.nccl_version",
            f"{PKG}.nvidia-nccl-*.version",
            f"{PKG}.nccl.version",
            "packages.conda.nccl.version",
        ),
        category="stack",
        severity=("high", "low", "low"),
        title="NCCL version changed",
        why="NCCL's tuning model and available algorithms change between versions, changing "
        "reduction order.",
        fix="Pin NCCL, or pin NCCL_ALGO/NCCL_PROTO so tuners cannot choose.",
        refs=(f"{NUM} E3", "aws/aws-ofi-nccl#1394"),
        gpu_only=True,
    ),
    Rule(
        id="stack.torch",
        match=(
            f"{PKG}.torch.version",
            "cuda_stack.torch_version",
            "torch.{version,git_version}",
            "cuda_stack.torch_git_version",
            f"{PKG}.{{torchvision,torchaudio,torchcodec}}.version",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="torch version changed",
        component_title="torch-family package changed",
        why="PyTorch does not promise reproducible results across releases; defaults and "
        "kernels change (see the version flips reported with it).",
        fix="Pin the exact torch version and CUDA variant.",
        refs=(f"{NUM} J1", RANDOMNESS_MD, "pytorch/pytorch#157274"),
        merge="torch-release",
        primary=(f"{PKG}.torch.version", "torch.version", "cuda_stack.torch_version"),
    ),
    Rule(
        id="stack.triton",
        # A wheel of its own that torch pins: it can be installed apart from torch (a newer
        # triton under the same torch), so beside a torch release it keeps its own finding,
        # as a cuDNN stated by its own wheel does (torch_wheel.py).
        match=(
            f"{PKG}.{{triton,pytorch-triton}}.version",
            "cuda_stack.libraries.triton.**",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="Triton compiler changed",
        why="Triton generates the GPU kernels of torch.compile (Inductor), FlexAttention and "
        "hand-written Triton kernels; a release changes the code it generates, so compiled "
        "results change with it while eager kernels do not.",
        fix="Pin triton with torch; to test it, install the other triton under the same torch.",
        refs=(f"{NUM} J1", "pytorch/pytorch#193183"),
        gpu_only=True,
        specificity=1,
    ),
    Rule(
        id="stack.torch-build",
        # What torch.__config__ says the build bundles and was built with: it comes with the
        # release (or the build variant), so it is the release's finding, as evidence.
        match=("torch.build.**",),
        category="stack",
        # Below stack.torch on every target: beside a version change, the version titles it.
        severity=("medium", "low", "low"),
        title="torch build configuration changed",
        why="the bundled oneDNN, MKL and the CUDA architectures a build compiles kernels for "
        "decide which CPU and GPU kernels run.",
        fix="Pin the exact torch build (version and variant) on both sides.",
        refs=(f"{NUM} J1", "torch.__config__.show()"),
        merge="torch-release",
    ),
    Rule(
        id="stack.framework",
        match=(
            f"{PKG}.{{transformers,tokenizers,accelerate,deepspeed,trl,peft}}.version",
            f"{PKG}.{{sentencepiece,datasets,megatron-core,flash-attn,xformers}}.version",
            f"{PKG}.{{transformer-engine,apex,diffusers,timm,lightning}}.version",
            f"{PKG}.{{pytorch-lightning,pyonmttok,tiktoken,subword-nmt,sacremoses}}.version",
            "tokenizer.{tokenizers_version,transformers_version}",
        ),
        category="stack",
        severity=("high", "high", "medium"),
        title="training-framework version changed",
        why="framework releases change loss computation, tokenization, attention choice and "
        "determinism helpers.",
        fix="Pin framework versions and record resolved trainer arguments.",
        refs=(f"{NUM} J2", f"{NUM} G5"),
        per="component",
    ),
    Rule(
        id="stack.preprocessing",
        match=(
            f"{PKG}.{{pillow,pillow-simd,opencv-python,opencv-python-headless}}.version",
            f"{PKG}.{{scikit-image,albumentations,imageio,librosa}}.version",
            # Audio and video decoders and resamplers: the samples a loader returns.
            f"{PKG}.{{{_DECODERS}}}.version",
            f"{PKG}.{{pillow,pillow-simd,opencv-python,opencv-python-headless}}",
            f"{PKG}.{{{_DECODERS},torchcodec}}",
        ),
        category="stack",
        severity=("high", "high", "medium"),
        title="image or audio preprocessing library changed",
        why="decoding and resizing defaults change between releases (Pillow 7.0 switched "
        "resize and thumbnail to bicubic/antialiased filters), and another audio or video "
        "decoder (libsndfile, FFmpeg) returns other samples, so the model sees other inputs.",
        fix="Pin the preprocessing libraries and pass resampling filters explicitly.",
        refs=("https://pillow.readthedocs.io/en/stable/releasenotes/7.0.0.html",),
        per="component",
        specificity=1,
    ),
    Rule(
        id="stack.numpy",
        match=(f"{PKG}.numpy.version",),
        category="stack",
        severity=("high", "medium", "low"),
        title="numpy version changed",
        why="numpy releases change type promotion, RNG streams (Generator) and sort tie order.",
        fix="Pin numpy (and its BLAS).",
        refs=(f"{NUM} G4", "https://numpy.org/devdocs/reference/random/compatibility.html"),
    ),
    Rule(
        id="stack.cuda-library",
        match=(
            "cuda_stack.libraries.*.{version,selected}",
            "cuda_stack.libraries.*.selected.{version,source,package}",
            "cuda_stack.libraries.*",
            f"{PKG}.nvidia-*.version",
            f"{PKG}.nvidia-*",
        ),
        category="stack",
        severity=("high", "low", "low"),
        title="CUDA or ROCm library changed",
        why="vendored CUDA libraries (cuFFT, cuSPARSE, cuRAND...) change kernels between releases.",
        fix="Pin every nvidia-* package with the torch wheel.",
        refs=(f"{NUM} D1",),
        gpu_only=True,
        per="component",
    ),
    Rule(
        id="stack.library-path",
        match=(f"{ENV}.LD_LIBRARY_PATH", f"{ENV}.LD_PRELOAD", "cuda_stack.search_dirs"),
        category="stack",
        severity=("high", "medium", "low"),
        title="library search path changed",
        why="a system CUDA on LD_LIBRARY_PATH can shadow the cuDNN inside the torch wheel.",
        fix="Check which cuDNN torch loads (cuda_stack.libraries.cudnn.selected).",
        refs=(f"{NUM} C6", "huggingface/transformers#48163"),
    ),
    Rule(
        id="stack.python",
        match=("python.{version,implementation,gil_disabled}",),
        category="stack",
        severity=("high", "low", "low"),
        title="Python interpreter changed",
        why="a different interpreter can change hashing, float formatting and library builds.",
        fix="Pin the Python version.",
        refs=(f"{NUM} G1",),
    ),
    Rule(
        id="stack.driver",
        match=("gpu.{driver_version,cuda_driver_version,nvml_version}",),
        category="stack",
        severity=("medium", "low", "low"),
        title="NVIDIA driver changed",
        why="no NVIDIA reproducibility statement names the driver; it matters only for NVLS "
        "all-reduce, PTX JIT of kernels newer than the wheel, or timing-based autotuning.",
        fix="Record it; raise it only when NVLS, PTX-JIT or autotuning are in use.",
        refs=(f"{NUM} D2", "NVIDIA/nccl#1497"),
        gpu_only=True,
    ),
    Rule(
        id="stack.package-major",
        match=(f"{PKG}.*.version",),
        when=("major",),
        category="stack",
        severity=("medium", "low", "low"),
        title="package major version changed",
        why="a major release of an unrelated package rarely touches numerics but may change "
        "defaults used by the job.",
        fix="Pin it if the job calls it in the training or data path.",
        refs=(f"{NUM} J2",),
        per="component",
    ),
    Rule(
        id="stack.package",
        match=(f"{PKG}.*.version", f"{PKG}.*", "packages.conda.**"),
        category="stack",
        severity=("low", "low", "low"),
        title="package changed",
        why="an unrelated package's minor or patch release is unlikely to change results.",
        fix="Pin it in the lock file to keep environments identical.",
        refs=(f"{NUM} J2",),
        per="component",
    ),
    Rule(
        id="stack.package-source",
        match=(f"{PKG}.*.{{source,url,vcs,commit,shadowed}}", f"{PKG}.*.shadowed.**"),
        category="stack",
        severity=("medium", "low", "low"),
        title="package installed from a different source",
        why="an editable, VCS or shadowed copy may not be the code the version string names.",
        fix="Install from the index, or record the commit.",
        refs=(f"{NUM} J2",),
        per="component",
    ),
)
