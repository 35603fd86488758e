"""Rules that read both manifests at once; `diff/derived.py` decides when they match."""

from __future__ import annotations

from envsnap.diff.catalog.refs import CUDA_MD, NUM, PKG, RANDOMNESS_MD
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="semantics.global-batch",
        merge="batch",
        specificity=1,
        match=("parallel.**",),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="global batch changed",
        why="micro-batch x data-parallel size x accumulation steps defines the optimization "
        "problem; a different product changes results unless LR and schedule are rescaled.",
        fix="Keep the computed global batch (and the LR schedule) equal, or compare across "
        "seeds as different experiments.",
        refs=(f"{NUM} F1", "https://www.deepspeed.ai/docs/config-json/"),
        derived=True,
    ),
    Rule(
        id="semantics.batch-layout",
        merge="batch",
        specificity=1,
        match=("parallel.**",),
        category="semantics",
        severity=("high", "high", "medium"),
        title="same global batch reached with a different layout",
        why="trading data parallelism for accumulation keeps the product but changes summation "
        "order, per-micro-batch statistics and, with mean-reduced losses, the weighting.",
        fix="Keep the layout for bitwise or close comparisons; for conclusions compare "
        "distributions across seeds.",
        refs=(f"{NUM} F1", f"{NUM} E6", "torch/utils/data/distributed.py"),
        derived=True,
    ),
    Rule(
        id="bug.transformers-ga-loss",
        specificity=2,
        match=(f"{PKG}.transformers.version", "parallel.**"),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="transformers gradient-accumulation loss bug on one side only",
        why="before 4.46 the Trainer averaged per-micro-batch mean losses instead of dividing "
        "by all target tokens of the accumulation window; 4.47.0 scaled the loss with the "
        "number of accumulation steps. Either changes the objective when accumulation > 1.",
        fix="Use transformers >= 4.46 on both sides, or accumulation 1, and normalise by total "
        "target tokens.",
        refs=(
            f"{NUM} F2",
            "https://huggingface.co/blog/gradient_accumulation",
            "huggingface/transformers#34191",
            "huggingface/transformers#35438",
        ),
        derived=True,
    ),
    Rule(
        id="bug.torch-2.5.0-cudnn-sdpa-h100",
        specificity=2,
        match=(f"{PKG}.torch.version", "gpu.devices.*.compute_capability"),
        category="algorithm",
        severity=("high", "high", "critical"),
        title="torch 2.5.0 on an H100-class GPU on one side only (cuDNN SDPA first)",
        why="torch 2.5.0 preferred cuDNN attention on sm90, which produced NaNs and loss "
        "explosions; 2.5.1 made it opt-in.",
        fix="Avoid torch 2.5.0 on Hopper, or disable cuDNN SDPA (sdpa_kernel / "
        "torch.backends.cuda.enable_cudnn_sdp(False)).",
        refs=(f"{NUM} B6", "pytorch/pytorch#138522", "pytorch/pytorch#139298"),
        derived=True,
    ),
    Rule(
        id="bug.tokenizers-0.19.0-llama3",
        specificity=2,
        match=(f"{PKG}.tokenizers.version", "tokenizer.**"),
        category="data",
        severity=("critical", "critical", "high"),
        title="tokenizers 0.19.0 with a Llama-3 tokenizer on one side only",
        why="tokenizers 0.19.0 -> 0.19.1 changed Llama-3 merges: the same text gets different "
        "token ids, so training and evaluation inputs differ.",
        fix="Use tokenizers >= 0.19.1 for Llama-3, and hash the tokenized data.",
        refs=(f"{NUM} G5", "huggingface/tokenizers#1512"),
        derived=True,
    ),
    Rule(
        id="precision.tf32-arch",
        match=("gpu.devices.*.arch", "torch.effective.*.tf32"),
        category="precision",
        severity=("high", "medium", "medium"),
        merge="tf32",
        specificity=1,
        gpu_only=True,
        title="fp32 math runs as TF32 on both sides, on different architectures",
        why="TF32 keeps 10 mantissa bits (A100 10240^2 matmul: 2.2e-3 relative error vs "
        "3.9e-5 in fp32) and different architectures run different TF32 kernels, so errors "
        "differ by orders of magnitude more than ULP reordering.",
        fix="Pin fp32 precision explicitly (torch.backends.cuda.matmul.fp32_precision='ieee' "
        "or set_float32_matmul_precision('highest')) when comparing across GPUs.",
        refs=(f"{NUM} A1", f"{NUM} B1", CUDA_MD),
        derived=True,
    ),
    Rule(
        id="precision.tf32-library",
        match=("torch.effective.*.tf32", "cuda_stack.{torch_build,torch_cuda}", "torch.cuda"),
        category="precision",
        severity=("high", "medium", "low"),
        merge="tf32",
        specificity=1,
        gpu_only=True,
        title="TF32 allowed on both sides, and the library that chooses TF32 kernels changed",
        why="allow_tf32 only permits TF32: cuBLAS and cuDNN choose per shape whether the "
        "kernel they run uses it. Each CUDA build of the torch wheel pins its own cuDNN and "
        "cuBLAS wheels, and each toolkit ships its own cuBLAS, so a CUDA build or toolkit change "
        "can move fp32 math to or from TF32 kernels even though the flags are the same.",
        fix="Set fp32 precision to 'ieee' on both sides to rule TF32 out; pin the "
        "nvidia-cudnn and nvidia-cublas wheels with the torch build.",
        refs=(
            f"{NUM} B2",
            "pytorch/pytorch:.github/scripts/generate_binary_build_matrix.py "
            "(PYTORCH_EXTRA_INSTALL_REQUIREMENTS: cuDNN and cuBLAS pinned per CUDA variant)",
            "https://docs.nvidia.com/cuda/archive/11.3.1/cuda-toolkit-release-notes/index.html "
            "(component versions: cuBLAS versioned with each toolkit)",
            "https://docs.nvidia.com/cuda/cublas/ (cublasMath_t: TF32 tensor-op math allows, "
            "not forces, TF32 kernels)",
        ),
        derived=True,
    ),
    Rule(
        id="precision.tf32-effective",
        match=("torch.effective.*.tf32",),
        category="precision",
        severity=("high", "high", "low"),
        merge="tf32",
        specificity=1,
        title="effective TF32 state of fp32 math changed",
        why="whether fp32 matmuls/convolutions actually run on TF32 tensor cores (flags, "
        "overrides and GPU capability combined) changes error by orders of magnitude.",
        fix="Set fp32 precision explicitly in code and unset NVIDIA_TF32_OVERRIDE / "
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE in the launcher.",
        refs=(f"{NUM} B1", f"{NUM} B2", f"{NUM} B4", CUDA_MD),
    ),
    Rule(
        id="algo.determinism-mismatch",
        merge="determinism",
        match=("torch.deterministic.algorithms", "torch.cudnn.*", "seeds.level"),
        category="randomness",
        severity=("high", "low", "low"),
        title="deterministic settings differ or are unknown on one side",
        why="if either run allowed nondeterministic kernels (cudnn.benchmark, atomics), even "
        "identical conditions differ bitwise, so a bitwise comparison is uninformative here.",
        fix="Run both sides with use_deterministic_algorithms(True), cudnn.deterministic=True, "
        "cudnn.benchmark=False and CUBLAS_WORKSPACE_CONFIG set in the launcher.",
        refs=(f"{NUM} C1", f"{NUM} C2", f"{NUM} C3", RANDOMNESS_MD),
        derived=True,
    ),
    Rule(
        id="flip.torch-1.12-tf32",
        specificity=1,
        match=(f"{PKG}.torch.version",),
        category="precision",
        severity=("high", "high", "low"),
        title="torch crossed 1.12: matmul TF32 default flipped off",
        why="allow_tf32 for CUDA matmuls defaulted to True in 1.7-1.11 and False from 1.12.",
        fix="Set torch.backends.cuda.matmul fp32 precision explicitly on both sides.",
        refs=(f"{NUM} B1", CUDA_MD, "pytorch/pytorch#76509"),
        derived=True,
        merge="tf32",
        gpu_only=True,
    ),
    Rule(
        id="flip.torch-2.0-foreach",
        specificity=1,
        match=(f"{PKG}.torch.version",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="torch crossed 2.0: foreach optimizers and the cuDNN v8 API became default",
        why="optimizers default to the foreach implementation on CUDA and cuDNN picks "
        "algorithms through its v8 API, both changing operation order.",
        fix="Set optimizer foreach/fused explicitly and record TORCH_CUDNN_V8_API_DISABLED.",
        refs=(f"{NUM} B10", f"{NUM} C7", "pytorch/pytorch#92306", "pytorch/pytorch#91117"),
        derived=True,
    ),
    Rule(
        id="flip.torch-2.5-sdpa",
        specificity=1,
        match=(f"{PKG}.torch.version",),
        category="algorithm",
        severity=("high", "medium", "medium"),
        title="torch crossed 2.5: SDPA math backend upcasts, cuDNN SDPA priority changed",
        why="the SDPA math backend accumulates fp16/bf16 in fp32 from about 2.5, and 2.5.0 "
        "briefly preferred cuDNN attention on H100.",
        fix="Pin the attention backend with sdpa_kernel and record attn_implementation.",
        refs=(f"{NUM} B6", "pytorch/pytorch#128922", "pytorch/pytorch#138522"),
        derived=True,
    ),
    Rule(
        id="flip.torch-2.9-fp32-precision",
        specificity=1,
        match=(f"{PKG}.torch.version",),
        category="precision",
        severity=("high", "medium", "low"),
        title="torch crossed 2.9: fp32_precision API replaces allow_tf32",
        why="from 2.9 per-backend fp32_precision settings decide TF32; mixing them with the "
        "legacy allow_tf32 flags is not supported, so the same script can resolve differently.",
        fix="Use only the fp32_precision API on torch >= 2.9 and assert the values at start.",
        refs=(f"{NUM} B3", CUDA_MD),
        derived=True,
    ),
    Rule(
        id="flip.transformers-4.46-ga-loss",
        specificity=1,
        match=(f"{PKG}.transformers.version",),
        category="semantics",
        severity=("high", "high", "medium"),
        title="transformers crossed 4.46: gradient-accumulation loss normalisation fixed",
        why="4.46 divides by all target tokens of the accumulation window; older releases "
        "averaged micro-batch means (matters whenever accumulation > 1).",
        fix="Pin transformers; check gradient_accumulation_steps on both sides.",
        refs=(f"{NUM} F2", "https://huggingface.co/blog/gradient_accumulation"),
        derived=True,
    ),
    Rule(
        id="flip.numpy-2.0-nep50",
        specificity=1,
        match=(f"{PKG}.numpy.version",),
        category="precision",
        severity=("high", "medium", "low"),
        title="numpy crossed 2.0: NEP 50 scalar promotion",
        why="np.float32(3) + 3.0 is float32 from numpy 2.0 (float64 before), so mixed scalar "
        "arithmetic in preprocessing runs at lower precision.",
        fix="Pin numpy and use explicit dtypes in preprocessing.",
        refs=(f"{NUM} G4", "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"),
        derived=True,
    ),
    Rule(
        id="flip.numpy-1.25-argsort",
        specificity=1,
        match=(f"{PKG}.numpy.version",),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="numpy crossed 1.25: AVX-512 argsort changes tie order",
        why="the SIMD argsort returns ties in a different order on different CPUs and releases.",
        fix="Use kind='stable' sorts in data pipelines.",
        refs=(f"{NUM} G4", "numpy/numpy#24064"),
        derived=True,
    ),
    Rule(
        id="flip.tokenizers-0.19.1",
        specificity=1,
        match=(f"{PKG}.tokenizers.version",),
        category="data",
        severity=("high", "high", "medium"),
        title="tokenizers crossed 0.19.1: Llama-3 merges changed",
        why="the same text encodes to different token ids for Llama-3 tokenizers.",
        fix="Pin tokenizers and hash the tokenized dataset.",
        refs=(f"{NUM} G5", "huggingface/tokenizers#1512"),
        derived=True,
    ),
)

# An advisory that applies to one side only (envsnap.audit.diffhook). Latent: at equal
# severity the finding that names the changed setting or hardware ranks first and the advisory
# follows as corroboration; where the advisory is more severe (a known bug window), its own
# severity puts it on top.
ADVISORY_RULES: tuple[Rule, ...] = (
    Rule(
        id="advisory.one-side",
        match=("packages.**",),
        category="stack",
        severity=("critical", "critical", "critical"),  # each hit carries its advisory's own
        title="a known bug or default flip applies to one side only",
        why="an advisory of the envsnap audit database (a documented silent-correctness bug or "
        "default change) holds for one manifest and not the other: the most specific cause.",
        fix="Run `envsnap audit` on both manifests for the advisory's details and workaround.",
        refs=("envsnap audit database (src/envsnap/audit/db)",),
        derived=True,
        per="path",  # one finding per package whose version flips advisories
        # The audit shows exposure (the conditions of a known bug hold), not that the bug acted
        # on this run; at equal severity the finding naming the change itself ranks first.
        latent=True,
    ),
)
