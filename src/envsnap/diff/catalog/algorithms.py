"""Rules for algorithm selection and determinism settings."""

from __future__ import annotations

from envsnap.diff.catalog.refs import CUBLAS_REPRO, CUDNN_REPRO, ENV, NUM, RANDOMNESS_MD
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="algo.sdpa",
        match=(
            "torch.sdpa.*",
            f"{ENV}.TORCH_CUDNN_SDPA_*",
            f"{ENV}.FLASH_ATTENTION_*",
        ),
        category="algorithm",
        severity=("high", "medium", "medium"),
        title="attention (SDPA) backend selection changed",
        why="flash, mem-efficient, math and cuDNN attention accumulate in different orders; "
        "bitwise agreement across backends is not guaranteed and some had silent bugs.",
        fix="Pin the backend with sdpa_kernel and record attn_implementation.",
        refs=(f"{NUM} B6", RANDOMNESS_MD, "pytorch/pytorch#193893"),
    ),
    Rule(
        id="algo.cudnn-benchmark",
        match=("torch.cudnn.benchmark", "seeds.flags.cudnn_benchmark"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="cudnn.benchmark changed",
        why="benchmark mode times algorithms and keeps the fastest, which can differ between "
        "runs even on one machine.",
        fix="Set cudnn.benchmark=False for reproducibility comparisons.",
        refs=(f"{NUM} C1", RANDOMNESS_MD),
        gpu_only=True,
    ),
    Rule(
        id="algo.cudnn-deterministic",
        match=("torch.cudnn.deterministic", "seeds.flags.cudnn_deterministic"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="cudnn.deterministic changed",
        why="without it cuDNN may pick atomics-based algorithms whose summation order varies "
        "from run to run.",
        fix="Set cudnn.deterministic=True on both sides.",
        refs=(f"{NUM} C2", CUDNN_REPRO),
        gpu_only=True,
        merge="determinism",
    ),
    Rule(
        id="algo.deterministic-algorithms",
        match=(
            "torch.deterministic.*",
            "seeds.flags.{deterministic_algorithms,warn_only}",
            "seeds.level",
        ),
        category="algorithm",
        severity=("high", "low", "low"),
        title="deterministic-algorithms mode changed",
        why="with the mode on, ops switch to different (deterministic) implementations, so the "
        "two runs execute different algorithms.",
        fix="Use the same use_deterministic_algorithms mode (warn_only=False) on both sides.",
        refs=(
            f"{NUM} C3",
            "https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html",
        ),
        merge="determinism",
    ),
    Rule(
        id="algo.cublas-workspace",
        match=(f"{ENV}.CUBLAS_WORKSPACE_CONFIG", "seeds.flags.cublas_workspace_config"),
        category="algorithm",
        severity=("medium", "low", "low"),
        title="CUBLAS_WORKSPACE_CONFIG changed",
        why="with several streams cuBLAS can choose workspaces nondeterministically; the "
        "variable only acts when set before CUDA initialises.",
        fix="Export CUBLAS_WORKSPACE_CONFIG=:4096:8 in the launcher, before Python starts.",
        refs=(f"{NUM} C4", CUBLAS_REPRO, "pytorch/pytorch#161749"),
        gpu_only=True,
    ),
    Rule(
        id="algo.cublaslt",
        match=(
            f"{ENV}.CUBLASLT_*",
            f"{ENV}.TORCH_BLAS_PREFER_*",
            f"{ENV}.TORCH_CUBLAS_*",
            f"{ENV}.DISABLE_ADDMM_CUDA_LT",
        ),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="cuBLAS/cuBLASLt routing or workspace changed",
        why="cuBLASLt heuristics depend on the workspace (split-K) and bias epilogues can add "
        "the bias in low precision.",
        fix="Pin preferred_blas_library and the workspace size, or set DISABLE_ADDMM_CUDA_LT=1.",
        refs=(f"{NUM} C5", "pytorch/pytorch#181944", "pytorch/pytorch#180875"),
        gpu_only=True,
    ),
    Rule(
        id="algo.cudnn-api",
        match=(f"{ENV}.TORCH_CUDNN_V8_API_*", "torch.cudnn.enabled"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="cuDNN API generation or use changed",
        why="the v7 and v8 cuDNN APIs (or no cuDNN) pick different algorithms.",
        fix="Treat like a cuDNN version change; record the variables.",
        refs=(f"{NUM} C7", "pytorch/pytorch#91117"),
        gpu_only=True,
    ),
    Rule(
        id="algo.nccl-algo",
        match=(f"{ENV}.NCCL_ALGO", f"{ENV}.NCCL_NVLS_ENABLE"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="NCCL algorithm changed",
        why="ring, tree and NVLS all-reduce sum in different orders; NVLS is not "
        "deterministic between calls.",
        fix="Pin NCCL_ALGO (e.g. Ring, or ^NVLS at least) before the first communicator.",
        refs=(f"{NUM} E1", "NVIDIA/nccl#1497", "pytorch/pytorch#156381"),
        gpu_only=True,
    ),
    Rule(
        id="algo.nccl-protocol",
        match=(f"{ENV}.NCCL_PROTO", f"{ENV}.NCCL_*CHANNELS*", f"{ENV}.NCCL_*PLUGIN*"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="NCCL protocol, channels or plugin changed",
        why="channels and tuner plugins change which reduction path each offset takes.",
        fix="Pin NCCL_ALGO/NCCL_PROTO and the channel counts for bitwise comparisons.",
        refs=(f"{NUM} E2", f"{NUM} E3", "NVIDIA/nccl#754", "NVIDIA/nccl#1055"),
        gpu_only=True,
    ),
    Rule(
        id="algo.compile",
        match=(
            "torch.compiled",
            "torch.compile.**",
            f"{ENV}.TORCHINDUCTOR_*",
            f"{ENV}.TORCHDYNAMO_*",
        ),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="torch.compile ran on one side only, or its Inductor settings changed",
        why="Inductor fuses ops, elides downcasts and autotunes kernels; compiled RNG differs "
        "from eager unless fallback_random is set.",
        fix="Compare compiled with compiled; enable Inductor deterministic mode.",
        refs=(f"{NUM} I1", f"{NUM} I2", "pytorch/pytorch#183761", "pytorch/pytorch#163589"),
    ),
    Rule(
        id="algo.ddp-bucket",
        match=("parallel.ddp_*",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="DDP bucketing changed",
        why="fusing gradients into buckets changes each element's offset in the all-reduce and "
        "so its summation order (bucket_cap_mb 20 -> 21 changed gradient hashes).",
        fix="Pin bucket_cap_mb, the wrap policy and the parameter order.",
        refs=(f"{NUM} E5", "pytorch/pytorch#30509"),
        gpu_only=True,
    ),
    Rule(
        id="algo.optimizer-impl",
        match=("precision.optimizer.param_groups.*.{foreach,fused,capturable,differentiable}",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="optimizer implementation (for-loop/foreach/fused) changed",
        why="the implementations order operations differently; fused CPU Adam slightly exceeds "
        "default test tolerances.",
        fix="Set foreach/fused explicitly and record them.",
        refs=(f"{NUM} B10", "pytorch/pytorch#92306", "pytorch/pytorch#123074"),
    ),
)
