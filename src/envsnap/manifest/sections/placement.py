"""The `placement` section: where the job really ran.

The container image as its inside states it, the scheduler's allocation (SLURM, Kubernetes) and
the CPUs the process may run on. Every fact names where it was read; what the inside of a
container cannot tell (the image digest, a tag no variable states) is null, with the reason in
`unknown`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section

ImageDefaultSetBy = Literal["image", "changed", "unknown"]


class StatedFact(Model):
    value: str = Field(description="The value as its source states it.")
    source: str = Field(
        description="Where it was read: `env:NAME` (a variable of this process), "
        "`file:PATH` (a file of the running root) or `derived:...`."
    )


class ImageDefault(Model):
    value: str | None = Field(description="The variable's value in this process; null: unset.")
    image_value: str | None = Field(
        description="The value the image itself declares, where the image declares its "
        "environment (Apptainer's /.singularity.d/env); null when it cannot be read."
    )
    set_by: ImageDefaultSetBy = Field(
        description="image: the image declares this value and the process has it; changed: "
        "the process has another value than the image declares; unknown: the image's own "
        "environment is not readable from inside, so the launcher may have set it."
    )
    source: str = Field(description="Where the image's declaration was read, or why not.")


class ContainerRuntime(Model):
    runtime: str | None = Field(
        description="apptainer, singularity, kubernetes, podman, docker, containerd or lxc; "
        "null when no marker of a container was seen."
    )
    engine: str | None = Field(
        description="The container engine under an orchestrator (docker, containerd, podman), "
        "when a marker names it."
    )
    evidence: list[str] = Field(
        description="Each marker seen, as `kind:where` (file:/.dockerenv, "
        "cgroup:/proc/1/cgroup names containerd, env:APPTAINER_CONTAINER...)."
    )


class ContainerImage(Model):
    product: StatedFact | None = Field(
        description="The product the image says it is (NVIDIA_PRODUCT_NAME, e.g. PyTorch)."
    )
    release: StatedFact | None = Field(
        description="The image's release (NGC: NVIDIA_PYTORCH_VERSION, e.g. 24.10)."
    )
    tag: StatedFact | None = Field(
        description="The image reference with its tag, where the inside states it "
        "(podman's /run/.containerenv)."
    )
    image_id: StatedFact | None = Field(
        description="The engine's image id, where the inside states it (podman)."
    )
    digest: StatedFact | None = Field(
        description="The registry digest of the image; the inside of a container does not see "
        "it, so this is null with the reason in `unknown`."
    )
    name: StatedFact | None = Field(
        description="Apptainer/Singularity container name (APPTAINER_NAME, SINGULARITY_NAME)."
    )
    path: StatedFact | None = Field(
        description="Apptainer/Singularity image file (APPTAINER_CONTAINER, SINGULARITY_CONTAINER)."
    )
    build_id: StatedFact | None = Field(description="The image's build id (NVIDIA_BUILD_ID).")
    requires_cuda: StatedFact | None = Field(
        description="The driver requirement the image declares (NVIDIA_REQUIRE_CUDA)."
    )
    os: dict[str, str] = Field(
        default_factory=dict,
        description="ID, VERSION_ID and PRETTY_NAME of the running root's /etc/os-release.",
    )
    libraries: dict[str, StatedFact] = Field(
        default_factory=dict,
        description="Library versions the image states in its variables (torch, cuda, cudnn, "
        "cublas, nccl, tensorrt...), each with the variable it was read from.",
    )
    defaults: dict[str, ImageDefault] = Field(
        default_factory=dict,
        description="Variables images set that change numerics (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"
        "...), with whether the image set them.",
    )


class SlurmAllocation(Model):
    job_id: str | None = Field(description="SLURM_JOB_ID (bookkeeping).")
    step_id: str | None = Field(description="SLURM_STEP_ID (bookkeeping).")
    array_job_id: str | None = Field(description="SLURM_ARRAY_JOB_ID (bookkeeping).")
    array_task_id: str | None = Field(description="SLURM_ARRAY_TASK_ID.")
    cluster: str | None = Field(description="SLURM_CLUSTER_NAME.")
    partition: str | None = Field(description="SLURM_JOB_PARTITION: decides the hardware.")
    node_list: str | None = Field(description="SLURM_JOB_NODELIST (bookkeeping).")
    node_name: str | None = Field(description="SLURMD_NODENAME: this task's node (bookkeeping).")
    nodes: int | None = Field(description="SLURM_JOB_NUM_NODES or SLURM_NNODES.")
    ntasks: int | None = Field(description="SLURM_NTASKS.")
    tasks_per_node: str | None = Field(
        description="SLURM_TASKS_PER_NODE (e.g. 2(x3)) or SLURM_NTASKS_PER_NODE."
    )
    cpus_per_task: int | None = Field(description="SLURM_CPUS_PER_TASK.")
    cpus_on_node: int | None = Field(description="SLURM_CPUS_ON_NODE.")
    cpu_bind: str | None = Field(description="SLURM_CPU_BIND, as srun applied it.")
    procid: int | None = Field(description="SLURM_PROCID: this task's global rank.")
    localid: int | None = Field(description="SLURM_LOCALID: this task's rank on its node.")
    nodeid: int | None = Field(description="SLURM_NODEID: this task's node index.")
    gpus: dict[str, str] = Field(
        default_factory=dict,
        description="The GPU allocation and binding by variable (SLURM_GPUS, "
        "SLURM_GPUS_PER_NODE, SLURM_GPUS_PER_TASK, SLURM_GPUS_ON_NODE, SLURM_GPU_BIND, "
        "SLURM_STEP_GPUS, SLURM_JOB_GPUS; CUDA_VISIBLE_DEVICES with board UUIDs hashed).",
    )
    memory: dict[str, str] = Field(
        default_factory=dict,
        description="SLURM_MEM_PER_NODE, SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU by variable.",
    )
    restart_count: int | None = Field(
        description="SLURM_RESTART_COUNT: how often the job was requeued (bookkeeping)."
    )


class KubernetesPod(Model):
    pod: StatedFact | None = Field(description="The pod's name (bookkeeping).")
    namespace: StatedFact | None = Field(description="The pod's namespace.")
    node: StatedFact | None = Field(description="The node the pod runs on (bookkeeping).")
    container: StatedFact | None = Field(description="The container's name in the pod.")
    resources: dict[str, StatedFact] = Field(
        default_factory=dict,
        description="Requested and limited resources the pod exposes (requests.cpu, "
        "limits.cpu, requests.memory, limits.memory...) through the downward API.",
    )


class CpuAffinity(Model):
    cpus: str | None = Field(
        description="The CPUs this process may run on (os.sched_getaffinity), as a list such "
        "as 0-7,16-23; null where the platform does not say."
    )
    count: int | None = Field(description="How many CPUs that is.")
    numa_nodes: list[int] = Field(
        default_factory=list, description="The NUMA nodes those CPUs belong to, sorted."
    )
    numa_cpus: dict[str, str] = Field(
        default_factory=dict,
        description="NUMA node -> the allowed CPUs on it, from /sys/devices/system/node.",
    )
    default_threads: int | None = Field(
        description="The thread count OpenMP (and torch's intra-op pool) starts with: "
        "OMP_NUM_THREADS when set, else one thread per allowed CPU."
    )
    default_threads_source: str | None = Field(
        description="What decides `default_threads`: env:OMP_NUM_THREADS or affinity."
    )


class PlacementSection(Section):
    container: ContainerRuntime = Field(description="The container runtime, from its markers.")
    image: ContainerImage = Field(description="The image, as its inside states it.")
    slurm: SlurmAllocation | None = Field(
        default=None, description="The SLURM allocation; null outside a SLURM job."
    )
    kubernetes: KubernetesPod | None = Field(
        default=None, description="The Kubernetes pod; null outside Kubernetes."
    )
    cpu: CpuAffinity = Field(description="CPU affinity, NUMA nodes and the default threads.")
