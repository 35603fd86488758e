"""Rules for where the job ran: the container image, the scheduler's allocation, the CPUs.

An image change is one finding that names the libraries it moves (`diff/placement.py` folds
the version changes it explains into it); an allocation change joins the GPU finding it causes
(merge `hw.gpu`, the hardware leads); an affinity change leads to the thread-count finding
(`env.threads`, which the default thread count joins); job, step, node and pod names, and
who set an image's variable, are bookkeeping.
"""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV, NUM
from envsnap.diff.rules import Rule

NGC_NOTES = "https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/"
CUDA_IMAGES = "https://gitlab.com/nvidia/container-images/cuda"
APPTAINER_ENV = "https://apptainer.org/docs/user/latest/environment_and_metadata.html"
SLURM_ENV = "https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES"
DOWNWARD_API = (
    "https://kubernetes.io/docs/tasks/inject-data-application/"
    "environment-variable-expose-pod-information/"
)
LIBGOMP = "https://gcc.gnu.org/onlinedocs/libgomp/OMP_005fNUM_005fTHREADS.html"

# The variables NGC and CUDA images state their identity and library versions in (the ones the
# env collector keeps by its prefixes).
IMAGE_VARIABLES = (
    "NVIDIA_PYTORCH_VERSION",
    "NVIDIA_PRODUCT_NAME",
    "NVIDIA_BUILD_ID",
    "NVIDIA_REQUIRE_CUDA",
    "PYTORCH_BUILD_VERSION",
    "PYTORCH_BUILD_NUMBER",
    "PYTORCH_VERSION",
    "CUDA_VERSION",
    "CUDA_DRIVER_VERSION",
    "CUDNN_VERSION",
    "CUBLAS_VERSION",
    "NCCL_VERSION",
)
_IDENTITY = "{product,release,tag,image_id,digest,name,path,build_id,requires_cuda}"

RULES: tuple[Rule, ...] = (
    Rule(
        id="placement.image",
        match=(
            f"placement.image.{_IDENTITY}",
            f"placement.image.{_IDENTITY}.**",
            "placement.image.libraries.**",
            "placement.image.os.**",
            f"{ENV}.{{{','.join(IMAGE_VARIABLES)}}}",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="container image changed",
        why="an image pins torch, CUDA, cuDNN, cuBLAS, NCCL, Python and the OS together, with "
        "defaults of its own (NGC images set TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1): a new tag "
        "moves them all at once. The finding names each library the image moves, from the "
        "image's own variables or, where only the release is recorded, from NVIDIA's release "
        "notes (those entries are marked inferred).",
        fix="Pin the image by digest in the launcher (image@sha256:..., the pod spec, the .sif "
        "file) and keep the digest with the run; compare runs of one image.",
        refs=(NGC_NOTES, CUDA_IMAGES, f"{NUM} D1"),
        specificity=1,
        primary=(
            "placement.image.release.value",
            "placement.image.tag.value",
            "placement.image.path.value",
            f"{ENV}.NVIDIA_PYTORCH_VERSION",
        ),
    ),
    Rule(
        id="noise.image-default",
        match=("placement.image.defaults", "placement.image.defaults.**"),
        category="noise",
        severity=("info", "info", "info"),
        title="who set a numerics variable differs (the image or the launcher)",
        why="where a variable's value came from cannot change results; its value is compared "
        "as the variable itself (env.variables).",
        fix="None needed; set numerics variables explicitly to not depend on image defaults.",
        refs=(APPTAINER_ENV,),
    ),
    Rule(
        id="placement.runtime",
        match=("placement.container", "placement.container.**"),
        category="environment",
        severity=("low", "low", "info"),
        title="container runtime changed",
        why="the runtime (docker, podman, Apptainer, Kubernetes) does not change arithmetic by "
        "itself; the image it runs and the allocation are compared on their own.",
        fix="None needed unless the image differs too.",
        refs=(APPTAINER_ENV,),
    ),
    Rule(
        id="placement.allocation",
        match=(
            "placement.slurm",
            "placement.slurm.{partition,cluster,nodes,ntasks,tasks_per_node,cpus_per_task}",
            "placement.slurm.{cpus_on_node,cpu_bind}",
            "placement.slurm.{gpus,memory}.**",
            "placement.kubernetes.resources.**",
        ),
        category="hardware",
        severity=("medium", "low", "low"),
        title="scheduler allocation changed",
        why="the partition decides the GPU model and the node; tasks, CPUs and GPUs per task "
        "decide the layout, the binding and the thread count. The hardware it brings is the "
        "GPU finding this one joins.",
        fix="Request the same partition, GPU type (--gpus=type:n) and CPUs per task; pin the "
        "GPU SKU for bitwise comparisons.",
        refs=(SLURM_ENV, DOWNWARD_API, f"{NUM} A1"),
        derived=True,
        merge="hw.gpu",
    ),
    Rule(
        id="placement.threads",
        match=("placement.cpu.{default_threads,default_threads_source}",),
        category="environment",
        severity=("medium", "info", "info"),
        title="default CPU thread count changed",
        why="OpenMP and torch's intra-op pool start with OMP_NUM_THREADS threads, else one per "
        "CPU the process may use; this is evidence of the thread-count finding it joins.",
        fix="Pin OMP/MKL thread counts (and torch.set_num_threads) explicitly.",
        refs=(LIBGOMP, f"{NUM} H1"),
        merge="env.threads",
    ),
    Rule(
        id="placement.affinity",
        match=("placement.cpu", "placement.cpu.**"),
        category="environment",
        severity=("low", "info", "info"),
        title="CPU affinity changed",
        why="which CPUs and NUMA nodes the process may use changes speed and memory locality, "
        "not arithmetic; the thread count it sets by default is its own finding.",
        fix="Bind the same CPUs (srun --cpu-bind, taskset) or set OMP_NUM_THREADS explicitly.",
        refs=(LIBGOMP, SLURM_ENV),
    ),
    Rule(
        id="noise.placement",
        match=(
            # A scheduler section on one side that allocates nothing stated (a job id only);
            # one that does is the allocation finding, which covers this path.
            "placement.{slurm,kubernetes}",
            "placement.slurm.{job_id,step_id,array_job_id,array_task_id,node_list,node_name}",
            "placement.slurm.{procid,localid,nodeid,restart_count}",
            "placement.kubernetes.{pod,node,container,namespace}",
            "placement.kubernetes.{pod,node,container,namespace}.**",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="job, step, node or pod names differ",
        why="job and step ids, node and pod names, ranks and requeue counts identify the run, "
        "not the computation.",
        fix="None needed.",
        refs=(),
    ),
)
