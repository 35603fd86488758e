"""What the scheduler allocated: SLURM's job variables, a Kubernetes pod's downward API.

Only named variables and files are read, never a family by prefix: a scheduler also hands the
job credentials (SLURM_JWT for slurmrestd, MUNGE's socket, a pod's service-account token at
/var/run/secrets/kubernetes.io/serviceaccount/token), and none of those is ever opened or
copied. Of the service-account folder only `namespace` is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from envsnap.capturing.collectors.env import hide_device_uuids
from envsnap.capturing.placement import read_text
from envsnap.manifest.records import KubernetesPod, SlurmAllocation, StatedFact

Redact = Callable[[str, str], str]

# SlurmAllocation text fields -> the variables that state them, first found wins.
_SLURM_TEXT: dict[str, tuple[str, ...]] = {
    "job_id": ("SLURM_JOB_ID", "SLURM_JOBID"),
    "step_id": ("SLURM_STEP_ID", "SLURM_STEPID"),
    "array_job_id": ("SLURM_ARRAY_JOB_ID",),
    "array_task_id": ("SLURM_ARRAY_TASK_ID",),
    "cluster": ("SLURM_CLUSTER_NAME",),
    "partition": ("SLURM_JOB_PARTITION",),
    "node_list": ("SLURM_JOB_NODELIST", "SLURM_NODELIST"),
    "node_name": ("SLURMD_NODENAME",),
    "tasks_per_node": ("SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE"),
    "cpu_bind": ("SLURM_CPU_BIND",),
}
_SLURM_INT: dict[str, tuple[str, ...]] = {
    "nodes": ("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
    "ntasks": ("SLURM_NTASKS", "SLURM_NPROCS"),
    "cpus_per_task": ("SLURM_CPUS_PER_TASK",),
    "cpus_on_node": ("SLURM_CPUS_ON_NODE",),
    "procid": ("SLURM_PROCID",),
    "localid": ("SLURM_LOCALID",),
    "nodeid": ("SLURM_NODEID",),
    "restart_count": ("SLURM_RESTART_COUNT",),
}
SLURM_GPU_VARIABLES: tuple[str, ...] = (
    "SLURM_GPUS",
    "SLURM_GPUS_PER_NODE",
    "SLURM_GPUS_PER_TASK",
    "SLURM_GPUS_PER_SOCKET",
    "SLURM_GPUS_ON_NODE",
    "SLURM_GPU_BIND",
    "SLURM_STEP_GPUS",
    "SLURM_JOB_GPUS",
    "CUDA_VISIBLE_DEVICES",
)
_SLURM_MEMORY = ("SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU", "SLURM_MEM_PER_GPU")
# SLURM sets SLURM_JOB_ID in every job and step; SLURM_CPUS_ON_NODE on every allocated node.
_IN_SLURM = ("SLURM_JOB_ID", "SLURM_JOBID")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _first(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        if env.get(name):
            return name, env[name]
    return None


def read_slurm(env: Mapping[str, str], redact: Redact) -> SlurmAllocation | None:
    """The SLURM allocation from its variables; None outside a SLURM job."""
    if not any(env.get(name) for name in _IN_SLURM):
        return None
    gpus = {
        name: hide_device_uuids(redact(name, env[name]))
        for name in SLURM_GPU_VARIABLES
        if env.get(name)
    }
    memory = {name: redact(name, env[name]) for name in _SLURM_MEMORY if env.get(name)}
    allocation = SlurmAllocation(
        **dict.fromkeys((*_SLURM_TEXT, *_SLURM_INT)), gpus=gpus, memory=memory
    )
    for field, names in _SLURM_TEXT.items():
        found = _first(env, names)
        setattr(allocation, field, redact(*found) if found else None)
    for field, names in _SLURM_INT.items():
        found = _first(env, names)
        setattr(allocation, field, _int(found[1]) if found else None)
    return allocation


# Downward-API names (the examples of kubernetes.io/docs/tasks/inject-data-application/) and
# the common spellings of each; the pod spec chooses them, so only these are read.
_POD_VARIABLES: dict[str, tuple[str, ...]] = {
    "pod": ("POD_NAME", "MY_POD_NAME", "K8S_POD_NAME", "KUBERNETES_POD_NAME"),
    "namespace": ("POD_NAMESPACE", "MY_POD_NAMESPACE", "K8S_NAMESPACE", "KUBERNETES_NAMESPACE"),
    "node": ("NODE_NAME", "MY_NODE_NAME", "K8S_NODE_NAME", "KUBERNETES_NODE_NAME"),
    "container": ("CONTAINER_NAME", "K8S_CONTAINER_NAME", "MY_CONTAINER_NAME"),
}
_RESOURCE_VARIABLES: dict[str, tuple[str, ...]] = {
    "requests.cpu": ("MY_CPU_REQUEST", "CPU_REQUEST"),
    "limits.cpu": ("MY_CPU_LIMIT", "CPU_LIMIT"),
    "requests.memory": ("MY_MEM_REQUEST", "MEMORY_REQUEST"),
    "limits.memory": ("MY_MEM_LIMIT", "MEMORY_LIMIT"),
}
# A downward-API volume (the documented example mounts it at /etc/podinfo).
PODINFO_DIR = "etc/podinfo"
_RESOURCE_FILES = {
    "requests.cpu": "cpu_request",
    "limits.cpu": "cpu_limit",
    "requests.memory": "mem_request",
    "limits.memory": "mem_limit",
}
_NAMESPACE_FILE = "var/run/secrets/kubernetes.io/serviceaccount/namespace"
_MAX_FIELD_BYTES = 4096


def _file_fact(root: Path, relative: str) -> StatedFact | None:
    text = read_text(root, relative, _MAX_FIELD_BYTES)
    value = text.strip() if text else ""
    return StatedFact(value=value, source=f"file:/{relative}") if value else None


def _env_fact(env: Mapping[str, str], names: tuple[str, ...], redact: Redact) -> StatedFact | None:
    found = _first(env, names)
    return StatedFact(value=redact(*found), source=f"env:{found[0]}") if found else None


def read_kubernetes(root: Path, env: Mapping[str, str], redact: Redact) -> KubernetesPod | None:
    """The pod as its downward API exposes it; None outside Kubernetes."""
    if not env.get("KUBERNETES_SERVICE_HOST"):
        return None
    facts = {field: _env_fact(env, names, redact) for field, names in _POD_VARIABLES.items()}
    if facts["namespace"] is None:
        facts["namespace"] = _file_fact(root, _NAMESPACE_FILE)
    if facts["pod"] is None and env.get("HOSTNAME"):
        # A pod's host name is its name unless the spec sets `hostname`.
        facts["pod"] = StatedFact(value=redact("HOSTNAME", env["HOSTNAME"]), source="env:HOSTNAME")
    resources: dict[str, StatedFact] = {}
    for key, names in _RESOURCE_VARIABLES.items():
        fact = _env_fact(env, names, redact) or _file_fact(
            root, f"{PODINFO_DIR}/{_RESOURCE_FILES[key]}"
        )
        if fact is not None:
            resources[key] = fact
    return KubernetesPod(**facts, resources=resources)
