"""The `gpu` section: GPU devices and driver, read through NVML (never through CUDA)."""

from __future__ import annotations

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class GpuCapabilities(Model):
    """Precision features the hardware offers, derived from the compute capability."""

    tf32: bool = Field(description="TF32 tensor cores (compute capability >= 8.0).")
    bf16: bool = Field(description="Native bfloat16 tensor-core math (compute capability >= 8.0).")
    fp8: bool = Field(description="FP8 tensor cores (compute capability >= 8.9).")
    flash_sdpa: bool = Field(
        description="PyTorch's flash scaled-dot-product attention can run (sm80 to sm121)."
    )


class MigDevice(Model):
    """One MIG instance carved out of a GPU."""

    index: int = Field(description="MIG device index within its parent GPU.")
    profile: str | None = Field(description="MIG profile, e.g. '3g.40gb'.")
    uuid_hash: str | None = Field(
        description="First 16 hex digits of sha256 of the MIG device UUID (the UUID itself is "
        "not recorded)."
    )
    gpu_instance_id: int | None = Field(description="GPU instance id.")
    compute_instance_id: int | None = Field(description="Compute instance id.")
    memory_total_bytes: int | None = Field(description="Memory of the instance.")
    sm_count: int | None = Field(description="Streaming multiprocessors of the instance.")


class GpuDevice(Model):
    """One physical GPU as NVML enumerates it (PCI bus order)."""

    index: int = Field(description="NVML index (PCI bus order).")
    name: str | None = Field(description="Product name, e.g. 'NVIDIA A100-SXM4-80GB'.")
    uuid_hash: str | None = Field(
        description="First 16 hex digits of sha256 of the GPU UUID: identifies the board across "
        "manifests without recording the UUID."
    )
    pci_bus_id: str | None = Field(description="PCI bus id, e.g. '00000000:07:00.0'.")
    compute_capability: str | None = Field(description="CUDA compute capability, e.g. '8.0'.")
    arch: str | None = Field(
        description="Architecture name from the compute capability (Volta, Ampere, Hopper...)."
    )
    capabilities: GpuCapabilities | None = Field(
        description="Precision features derived from the compute capability; null when it is "
        "unknown."
    )
    memory_total_bytes: int | None = Field(description="Total device memory in bytes.")
    sm_count: int | None = Field(
        description="Streaming multiprocessors, where NVML reports it (changes cuBLAS results)."
    )
    mig_mode: bool | None = Field(description="MIG mode currently enabled; null if unsupported.")
    mig_mode_pending: bool | None = Field(description="MIG mode after the next GPU reset.")
    mig_devices: list[MigDevice] = Field(
        default_factory=list, description="MIG instances on this GPU, by MIG index."
    )
    ecc_enabled: bool | None = Field(description="ECC currently enabled.")
    persistence_mode: bool | None = Field(description="Persistence mode enabled.")
    compute_mode: str | None = Field(
        description="'default', 'exclusive_thread', 'prohibited' or 'exclusive_process'."
    )
    power_limit_w: float | None = Field(description="Enforced power limit in watts.")
    app_clock_graphics_mhz: int | None = Field(description="Application graphics clock, MHz.")
    app_clock_memory_mhz: int | None = Field(description="Application memory clock, MHz.")
    nvlink_active_links: int | None = Field(
        description="NVLink links in the active state; null when the GPU has no NVLink."
    )


class GpuLink(Model):
    """How two GPUs reach each other."""

    topology: str | None = Field(
        description="Nearest common ancestor from NVML: 'internal', 'single_switch', "
        "'multiple_switches', 'host_bridge', 'numa_node' or 'system'."
    )
    nvlink: bool | None = Field(description="Peer-to-peer over NVLink is available.")


class VisibleDevice(Model):
    """One entry of the CUDA device list the job sees."""

    cuda_index: int = Field(description="Ordinal the job uses (cuda:N).")
    selector: str = Field(
        description="The CUDA_VISIBLE_DEVICES entry (UUIDs reduced to a hash prefix), or the "
        "NVML index when the variable is unset."
    )
    gpu_index: int | None = Field(description="NVML index of the physical GPU it resolves to.")
    mig_index: int | None = Field(
        default=None, description="MIG device index when the entry selects a MIG instance."
    )


class GpuSection(Section):
    driver_version: str | None = Field(description="NVIDIA driver version, e.g. '550.54.15'.")
    cuda_driver_version: str | None = Field(
        description="Highest CUDA version the driver supports, e.g. '12.4'."
    )
    nvml_version: str | None = Field(description="NVML library version.")
    device_count: int | None = Field(
        description="Physical GPUs NVML sees (ignores CUDA_VISIBLE_DEVICES)."
    )
    devices: dict[str, GpuDevice] = Field(
        description="Physical GPUs keyed by NVML index ('0', '1', ...)."
    )
    links: dict[str, GpuLink] = Field(
        default_factory=dict,
        description="Pairwise topology keyed 'i-j' (i < j, NVML indices).",
    )
    cuda_visible_devices: str | None = Field(
        description="CUDA_VISIBLE_DEVICES as set (UUIDs reduced to a hash prefix); null if unset."
    )
    cuda_device_order: str | None = Field(
        description="CUDA_DEVICE_ORDER; ordinals map to NVML (PCI) order only with PCI_BUS_ID."
    )
    visible: list[VisibleDevice] = Field(
        description="The devices the job sees, in CUDA ordinal order, resolved to NVML indices."
    )
