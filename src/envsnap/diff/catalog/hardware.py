"""Rules for the GPUs and the host."""

from __future__ import annotations

from envsnap.diff.catalog.refs import CUBLAS_REPRO, CUDNN_REPRO, ENV, NUM
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="hw.gpu-arch",
        match=("gpu.devices.*.{arch,compute_capability}",),
        category="hardware",
        severity=("high", "medium", "low"),
        title="GPU architecture changed",
        why="different architectures run different kernels; no cuDNN or cuBLAS routine is "
        "bitwise reproducible across architectures.",
        fix="Pin the GPU SKU for bitwise comparisons; across architectures compare with "
        "tolerances and pinned precision flags.",
        refs=(f"{NUM} A1", CUDNN_REPRO, CUBLAS_REPRO, "pytorch/pytorch#150700"),
    ),
    Rule(
        id="hw.gpu-sku",
        match=(
            "gpu.devices.*.{name,sm_count,mig_mode}",
            "gpu.devices.*.mig_devices.**",
            "gpu.devices.*",
            "gpu.device_count",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="GPU model, SM count or MIG slice changed",
        why="cuBLAS guarantees bitwise results only on GPUs with the same architecture and the "
        "same number of SMs (H100 SXM 132 vs PCIe 114).",
        fix="Record SM count and MIG profile; require an exact match for bitwise comparisons.",
        refs=(f"{NUM} A2", CUBLAS_REPRO, "NVIDIA/cub#108"),
    ),
    Rule(
        id="hw.topology",
        match=(
            "gpu.links.**",
            "gpu.devices.*.nvlink_active_links",
            "gpu.{visible,cuda_visible_devices,cuda_device_order}",
            "gpu.visible.**",
            f"{ENV}.NCCL_TOPO_FILE",
            f"{ENV}.NCCL_GRAPH_FILE",
            f"{ENV}.CUDA_VISIBLE_DEVICES",
            f"{ENV}.CUDA_DEVICE_ORDER",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="GPU topology or rank-to-GPU mapping changed",
        why="ring order follows the physical topology; remapping ranks changes the "
        "communication and summation order.",
        fix="Pin the rank mapping and supply NCCL_TOPO_FILE for cross-run bitwise comparisons.",
        refs=(f"{NUM} E4", "NVIDIA/nccl#23", "NVIDIA/nccl#1461"),
    ),
    Rule(
        id="hw.cpu-isa",
        match=(
            "system.cpu.{isa_flags,model,vendor}",
            "torch.cpu_capability",
            f"{ENV}.{{ATEN_CPU_CAPABILITY,MKL_CBWR,MKL_ENABLE_INSTRUCTIONS}}",
            f"{ENV}.{{ONEDNN_MAX_CPU_ISA,DNNL_MAX_CPU_ISA}}",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="CPU model or instruction set changed",
        why="ATen, oneDNN and MKL dispatch kernels by ISA, changing reduction order and "
        "blocking; numpy SIMD sorts return different tie orders.",
        fix="Pin MKL_CBWR / ONEDNN_MAX_CPU_ISA / ATEN_CPU_CAPABILITY to a common ISA and use "
        "stable sorts.",
        refs=(
            f"{NUM} A3",
            "https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html",
        ),
    ),
    Rule(
        id="hw.cpu-arch",
        match=("system.cpu.architecture",),
        category="hardware",
        severity=("high", "medium", "low"),
        title="CPU architecture changed",
        why="x86 and ARM builds run different kernels and libraries end to end.",
        fix="Compare runs on the same CPU architecture.",
        refs=(f"{NUM} A3",),
    ),
    Rule(
        id="hw.gpu-settings",
        match=(
            "gpu.devices.*.{memory_total_bytes,ecc_enabled,persistence_mode,compute_mode}",
            "gpu.devices.*.{power_limit_w,app_clock_graphics_mhz,app_clock_memory_mhz}",
            "gpu.devices.*.mig_mode_pending",
        ),
        category="hardware",
        severity=("low", "low", "info"),
        title="GPU memory, clocks or mode changed",
        why="these change speed, not arithmetic, except through timing-based autotuning.",
        fix="No action unless cudnn.benchmark or autotuning is on.",
        refs=(f"{NUM} D2",),
    ),
)
