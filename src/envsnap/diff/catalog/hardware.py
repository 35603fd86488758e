"""Rules for the GPUs and the host."""

from __future__ import annotations

from envsnap.diff.catalog.refs import CUBLAS_REPRO, CUDNN_REPRO, ENV, NUM
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="hw.gpu",
        match=(
            "gpu.devices.*.{arch,compute_capability,name,sm_count,mig_mode}",
            "gpu.devices.*.mig_devices.**",
            "gpu.devices.*",
            "gpu.device_count",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="GPU changed",
        why="the GPU model, count, SM count or MIG slice differs; what that changes (kernel "
        "choice, TF32, seeded CUDA random streams) is reported as its own finding.",
        fix="Pin the GPU SKU and MIG profile for bitwise comparisons; otherwise compare with "
        "tolerances and pinned precision flags.",
        refs=(f"{NUM} A1", f"{NUM} A2", CUBLAS_REPRO),
        primary=("gpu.devices",),
    ),
    Rule(
        id="hw.gpu-kernels",
        match=("gpu.devices.*.{arch,compute_capability,sm_count,name}",),
        category="hardware",
        severity=("high", "low", "low"),
        title="cuBLAS/cuDNN pick other kernels",
        why="cuBLAS and cuDNN choose kernels by architecture and SM count; no routine is "
        "bitwise reproducible across architectures, and cuBLAS only across GPUs with the same "
        "SM count (H100 SXM 132 vs PCIe 114).",
        fix="Pin the GPU SKU for bitwise comparisons; across GPUs compare with tolerances.",
        refs=(f"{NUM} A1", f"{NUM} A2", CUDNN_REPRO, CUBLAS_REPRO, "pytorch/pytorch#150700"),
        derived=True,
        specificity=1,
        gpu_only=True,
        # The kernels a new GPU runs are that GPU change's consequence: one finding, the GPU
        # names in its evidence, not a second row for the same cause.
        merge="hw.gpu",
    ),
    Rule(
        id="hw.device",
        match=("precision.device", "torch.cuda_available"),
        category="hardware",
        severity=("high", "medium", "low"),
        title="the job ran on another device type",
        why="GPU and CPU run entirely different kernels (and the GPU side may run fp32 math as "
        "TF32, reported on its own).",
        fix="Compare runs on the same device type; pin fp32 precision on the GPU side.",
        refs=(f"{NUM} A1", f"{NUM} A3"),
        derived=True,
        specificity=1,
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
        gpu_only=True,
    ),
    Rule(
        id="hw.cpu-isa",
        match=(
            "system.cpu.{isa_flags,model,vendor}",
            "torch.cpu_capability",
            f"{ENV}.{{ATEN_CPU_CAPABILITY,MKL_CBWR,MKL_ENABLE_INSTRUCTIONS}}",
            f"{ENV}.{{ONEDNN_MAX_CPU_ISA,DNNL_MAX_CPU_ISA}}",
            # The same choice for numpy's ufuncs and sorts and for OpenBLAS's kernels.
            f"{ENV}.{{NPY_DISABLE_CPU_FEATURES,NPY_ENABLE_CPU_FEATURES,OPENBLAS_CORETYPE}}",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="CPU model or instruction set changed",
        why="ATen, oneDNN, MKL, OpenBLAS and numpy dispatch kernels by ISA, changing reduction "
        "order, blocking and the accuracy of vectorized math; numpy SIMD sorts return different "
        "tie orders.",
        fix="Pin MKL_CBWR / ONEDNN_MAX_CPU_ISA / ATEN_CPU_CAPABILITY / OPENBLAS_CORETYPE to a "
        "common ISA or core, switch off the same features with NPY_DISABLE_CPU_FEATURES, and "
        "use stable sorts.",
        refs=(
            f"{NUM} A3",
            "https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html",
            "numpy docs, CPU/SIMD optimizations: runtime dispatch (npy_cpu_features.h)",
            "OpenMathLib/OpenBLAS README: OPENBLAS_CORETYPE in DYNAMIC_ARCH builds",
        ),
        # One finding with the kernels it makes a CPU job run (hw.cpu-kernels titles it).
        merge="cpu-kernels",
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
        gpu_only=True,
    ),
)
