"""Emulated containers and allocations for the placement tests: a planted root and variables.

The library versions below are this fixture's own (an image's variables, as a test plants
them), not a statement of what any NGC release ships; the release table is tested on its own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

# What a fictional pair of NGC-like images states about itself, by release.
NGC_IMAGE_ENV: dict[str, dict[str, str]] = {
    "24.10": {
        "NVIDIA_PRODUCT_NAME": "PyTorch",
        "NVIDIA_PYTORCH_VERSION": "24.10",
        "NVIDIA_BUILD_ID": "1001",
        "PYTORCH_BUILD_VERSION": "2.5.0a0+e000cf0ad9",
        "PYTORCH_VERSION": "2.5.0a0+e000cf0ad9",
        "CUDA_VERSION": "12.6.2.004",
        "CUDA_DRIVER_VERSION": "560.35.03",
        "CUDNN_VERSION": "9.5.0.50",
        "CUBLAS_VERSION": "12.6.3.3",
        "NCCL_VERSION": "2.22.3",
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1",
    },
    "24.11": {
        "NVIDIA_PRODUCT_NAME": "PyTorch",
        "NVIDIA_PYTORCH_VERSION": "24.11",
        "NVIDIA_BUILD_ID": "1002",
        "PYTORCH_BUILD_VERSION": "2.6.0a0+df5bbc09d1",
        "PYTORCH_VERSION": "2.6.0a0+df5bbc09d1",
        "CUDA_VERSION": "12.6.3.001",
        "CUDA_DRIVER_VERSION": "560.35.05",
        "CUDNN_VERSION": "9.5.1.17",
        "CUBLAS_VERSION": "12.6.4.1",
        "NCCL_VERSION": "2.23.4",
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1",
    },
}

OS_RELEASE = 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n'

SLURM_ENV: dict[str, str] = {
    "SLURM_JOB_ID": "4242",
    "SLURM_STEP_ID": "0",
    "SLURM_JOB_PARTITION": "a100",
    "SLURM_CLUSTER_NAME": "lab",
    "SLURM_JOB_NODELIST": "gpu[01-02]",
    "SLURMD_NODENAME": "gpu01",
    "SLURM_JOB_NUM_NODES": "2",
    "SLURM_NTASKS": "4",
    "SLURM_TASKS_PER_NODE": "2(x2)",
    "SLURM_CPUS_PER_TASK": "8",
    "SLURM_CPUS_ON_NODE": "16",
    "SLURM_CPU_BIND": "quiet,mask_cpu:0xFF",
    "SLURM_PROCID": "0",
    "SLURM_LOCALID": "0",
    "SLURM_NODEID": "0",
    "SLURM_GPUS_PER_NODE": "a100:2",
    "SLURM_STEP_GPUS": "0,1",
    "SLURM_JOB_GPUS": "0,1",
    "SLURM_RESTART_COUNT": "1",
    "SLURM_MEM_PER_NODE": "64000",
    "CUDA_VISIBLE_DEVICES": "GPU-8a3b1c2d-0000-1111-2222-333344445555,1",
}

# Credentials a scheduler hands a job; no output may ever hold them. Built at run time, so no
# secret-looking literal sits in the repository.
SECRET = "tok" + hashlib.sha256(b"placement credential").hexdigest()[:29]
SLURM_CREDENTIALS: dict[str, str] = {
    "SLURM_JWT": SECRET,
    "SLURM_JOB_CREDENTIAL": SECRET,
    "MUNGE_CRED": SECRET,
}


def plant_container(root: Path, *, docker: bool = True, numa: dict[int, str] | None = None) -> Path:
    """A container's inside under `root`: /.dockerenv, cgroup and mountinfo naming the
    engine, the image's os-release and (optionally) NUMA nodes with their CPU lists."""
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc" / "os-release").write_text(OS_RELEASE)
    proc = root / "proc"
    (proc / "1").mkdir(parents=True, exist_ok=True)
    (proc / "self").mkdir(parents=True, exist_ok=True)
    if docker:
        (root / ".dockerenv").write_text("")
        (proc / "1" / "cgroup").write_text("12:cpuset:/docker/0123456789abcdef0123\n")
        (proc / "self" / "mountinfo").write_text(
            "600 500 0:50 / / rw - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A\n"
        )
    for node, cpus in (numa or {}).items():
        folder = root / "sys" / "devices" / "system" / "node" / f"node{node}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "cpulist").write_text(cpus + "\n")
    return root


def plant_pod(root: Path) -> dict[str, str]:
    """A pod's downward API and service account under `root`, its token holding SECRET;
    returns the pod's variables."""
    account = root / "var" / "run" / "secrets" / "kubernetes.io" / "serviceaccount"
    account.mkdir(parents=True, exist_ok=True)
    (account / "token").write_text(SECRET)
    (account / "namespace").write_text("training\n")
    (account / "ca.crt").write_text(SECRET)
    podinfo = root / "etc" / "podinfo"
    podinfo.mkdir(parents=True, exist_ok=True)
    (podinfo / "cpu_limit").write_text("8")
    (podinfo / "mem_limit").write_text("68719476736")
    return {
        "KUBERNETES_SERVICE_HOST": "10.0.0.1",
        "KUBERNETES_SERVICE_PORT": "443",
        "POD_NAME": "trainer-7d9f-0",
        "NODE_NAME": "node-a",
        "MY_CPU_REQUEST": "4",
        "HOSTNAME": "trainer-7d9f-0",
    }
