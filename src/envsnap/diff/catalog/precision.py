"""Rules for numeric precision: dtypes, TF32, autocast, reduced-precision reductions."""

from __future__ import annotations

from envsnap.diff.catalog.refs import ACCURACY_MD, CUDA_MD, ENV, NUM
from envsnap.diff.rules import Rule

MKLDNN_MD = "https://docs.pytorch.org/docs/stable/notes/mkldnn.html"

RULES: tuple[Rule, ...] = (
    Rule(
        id="precision.amp",
        match=(
            "precision.amp_dtype",
            "precision.autocast.**",
            "precision.matmul_input_precision",
            "precision.accumulation_dtype",
        ),
        category="precision",
        severity=("high", "high", "medium"),
        title="mixed-precision (autocast) dtype changed",
        why="fp16 (10 mantissa bits, narrow range, needs loss scaling) and bf16 (7 bits) round "
        "every GEMM differently and overflow differently.",
        fix="Never compare fp16 and bf16 runs as the same configuration; pin the AMP dtype.",
        refs=(f"{NUM} B7", "https://docs.pytorch.org/docs/stable/amp.html"),
        specificity=1,
    ),
    Rule(
        id="precision.dtypes",
        match=(
            "precision.{params,buffers,grads}.**",
            "precision.optimizer.state_dtypes.**",
            "precision.{grad_dtype,optimizer_state_dtype,master_weights_dtype}",
            "precision.fsdp_*",
            "precision.fp8_recipe",
            "torch.default_dtype",
        ),
        category="precision",
        severity=("high", "high", "medium"),
        title="storage, gradient or optimizer-state dtype changed",
        why="low-precision gradients, master weights or optimizer state (and FSDP reduce_dtype) "
        "change accuracy materially.",
        fix="Record and pin param/reduce/buffer dtypes; prefer fp32 reduction for comparisons.",
        refs=(f"{NUM} B9", "allenai/OLMo commit 70a3f4c"),
    ),
    Rule(
        id="precision.grad-scaler",
        match=("precision.scaler", "precision.scaler.**"),
        category="precision",
        severity=("high", "medium", "low"),
        title="GradScaler configuration changed",
        why="loss scaling decides which steps are skipped on overflow; skipped steps shift the "
        "trajectory and the LR schedule.",
        fix="Pin the scaler settings, checkpoint its state and log skipped steps.",
        refs=(f"{NUM} B8", "torch/amp/grad_scaler.py (GradScaler.step)"),
    ),
    Rule(
        id="precision.tf32-matmul",
        # The CUDA leaves only: the generic and mkldnn leaves decide CPU math too, and the
        # CPU rule below reads them through the effective precision.
        match=(
            "torch.matmul.allow_tf32",
            "torch.matmul.float32_matmul_precision",
            "torch.fp32_precision.cud*",
        ),
        category="precision",
        severity=("high", "high", "low"),
        title="fp32 matmul precision setting changed",
        why="TF32 matmuls keep 10 mantissa bits (A100: 2.2e-3 vs 3.9e-5 relative error); the "
        "setting only acts on GPUs of compute capability 8.0 or newer.",
        fix="Set fp32 precision explicitly in code and log the effective value.",
        refs=(f"{NUM} B1", f"{NUM} B3", CUDA_MD),
        merge="tf32",
        gpu_only=True,
    ),
    Rule(
        id="precision.tf32-conv",
        match=("torch.cudnn.allow_tf32",),
        category="precision",
        severity=("high", "high", "low"),
        title="cuDNN TF32 setting changed",
        why="cuDNN convolutions use TF32 by default on Ampere and newer; toggling it changes "
        "conv numerics.",
        fix="Pin torch.backends.cudnn.allow_tf32 (or cudnn.conv.fp32_precision).",
        refs=(f"{NUM} B2", ACCURACY_MD),
        merge="tf32",
        gpu_only=True,
    ),
    Rule(
        id="precision.tf32-override",
        match=(
            f"{ENV}.NVIDIA_TF32_OVERRIDE",
            f"{ENV}.TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
            "torch.effective.overrides.*",
        ),
        category="precision",
        severity=("high", "high", "low"),
        title="TF32 override variable changed",
        why="these variables switch TF32 on or off inside NVIDIA libraries regardless of "
        "PyTorch's flags (NGC images set TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1).",
        fix="Unset or pin both variables in the launcher.",
        refs=(
            f"{NUM} B4",
            "https://docs.pytorch.org/docs/2.15/cuda_environment_variables.html",
            "Project-MONAI/MONAI#6754",
        ),
        merge="tf32",
        specificity=1,
        gpu_only=True,
    ),
    Rule(
        id="precision.reduced-reduction",
        match=("torch.matmul.allow_*reduc*", "torch.matmul.allow_fp16_accumulation"),
        category="precision",
        severity=("high", "medium", "low"),
        title="reduced-precision GEMM reduction setting changed",
        why="cuBLAS may keep split-K partial sums in fp16/bf16, which changes results and can "
        "produce inf in fp16.",
        fix="Pin the flags explicitly (tuple form pins split-K too).",
        refs=(f"{NUM} B5", ACCURACY_MD),
        gpu_only=True,
    ),
    Rule(
        id="precision.tf32-available",
        match=("gpu.devices.*.capabilities.tf32",),
        category="precision",
        severity=("high", "medium", "medium"),
        title="TF32 available on one side only",
        why="TF32 needs compute capability 8.0 or newer; fp32 math the flags allow to run as "
        "TF32 keeps 10 mantissa bits on one side and 23 on the other.",
        fix="Pin fp32 precision explicitly (fp32_precision='ieee' or "
        "set_float32_matmul_precision('highest')) when comparing across GPUs.",
        refs=(f"{NUM} A1", f"{NUM} B1", CUDA_MD),
        merge="tf32",
        latent=True,
        gpu_only=True,
    ),
    Rule(
        id="precision.capabilities",
        match=("gpu.devices.*.capabilities.{bf16,fp8,flash_sdpa}",),
        category="precision",
        severity=("high", "medium", "medium"),
        title="GPU precision capabilities changed",
        why="TF32, native bf16, FP8 and flash attention need specific compute capabilities; a "
        "GPU change can switch latent precision settings on or off.",
        fix="Diff the capability-resolved configuration; pin precision explicitly.",
        refs=(f"{NUM} A1", "https://nvidia.github.io/TransformerEngine/support_matrix.html"),
        latent=True,
        gpu_only=True,
    ),
    Rule(
        id="precision.cpu-fp32",
        match=(
            "torch.fp32_precision.mkldnn*",
            "torch.fp32_precision.generic",
            "torch.matmul.float32_matmul_precision",
            "torch.cpu.**",
            "torch.cpu_capability",
            "system.cpu.isa_flags",
        ),
        derived=True,
        category="precision",
        severity=("high", "high", "medium"),
        title="fp32 math on the CPU runs in another precision",
        why="oneDNN computes fp32 matmuls, convolutions and RNNs in bf16 (8 mantissa bits) or "
        "tf32 when torch asks and the CPU has the kernels; PyTorch's note measures about "
        "1.7e-2 relative error in bf16 mode against 3e-6 in ieee mode on Sapphire Rapids.",
        fix="Set torch.backends.mkldnn.fp32_precision='ieee' (or keep "
        "set_float32_matmul_precision('highest')) when comparing runs, and log the effective "
        "precision.",
        refs=(f"{NUM} B3", MKLDNN_MD, "pytorch/pytorch#125386"),
        merge="tf32",
        specificity=1,
    ),
    Rule(
        id="hw.cpu-kernels",
        match=("torch.cpu_capability", "torch.cpu.features"),
        derived=True,
        category="hardware",
        severity=("high", "medium", "low"),
        title="CPU kernels differ on a job that ran on the CPU",
        why="ATen picks vectorised kernels by CPU capability (AVX2, AVX512...) and oneDNN by ISA "
        "(AMX...); each choice changes blocking and reduction order, and here the model's own "
        "fp32 math ran on the CPU.",
        fix="Run both sides on one CPU type, or pin ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA "
        "to a common ISA.",
        refs=(
            f"{NUM} A3",
            "https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html",
        ),
        # One finding with the instruction-set change it follows from.
        merge="cpu-kernels",
        specificity=1,
    ),
)
