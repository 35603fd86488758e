"""The `placement` collector: runtime markers, the image's own statements, the scheduler's
allocation and the CPU affinity, read from planted roots and real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.capturing.collectors.placement import collect
from envsnap.capturing.placement.affinity import format_cpulist, parse_cpulist
from envsnap.manifest.records import plain
from tests.helpers import REPO_ROOT, assert_valid_section, capture_context
from tests.helpers.placement import (
    NGC_IMAGE_ENV,
    SECRET,
    SLURM_CREDENTIALS,
    SLURM_ENV,
    plant_container,
    plant_pod,
)


def _placement(root: Path, env: dict[str, str]) -> dict[str, object]:
    context = capture_context(root, env)
    context.files_root = root
    section = collect(context)
    assert_valid_section("placement", section)
    document: dict[str, object] = plain(section)
    return document


def test_an_ngc_container_states_its_release_libraries_and_os(tmp_path: Path) -> None:
    root = plant_container(tmp_path)
    found = _placement(root, dict(NGC_IMAGE_ENV["24.10"]))
    container, image = found["container"], found["image"]
    assert container == {
        "runtime": "docker",
        "engine": None,
        "evidence": [
            "file:/.dockerenv",
            "cgroup:/proc/1/cgroup names docker",
            "mountinfo:/proc/self/mountinfo names docker",
        ],
    }
    assert image["release"] == {"value": "24.10", "source": "env:NVIDIA_PYTORCH_VERSION"}
    assert image["product"]["value"] == "PyTorch"
    assert image["libraries"]["cudnn"] == {"value": "9.5.0.50", "source": "env:CUDNN_VERSION"}
    assert image["libraries"]["torch"]["source"] == "env:PYTORCH_BUILD_VERSION"
    assert set(image["libraries"]) >= {"torch", "cuda", "cuda_driver", "cublas", "nccl"}
    assert image["os"] == {
        "ID": "ubuntu",
        "PRETTY_NAME": "Ubuntu 22.04.5 LTS",
        "VERSION_ID": "22.04",
    }
    # Inside docker the image's own environment cannot be told from the launcher's: the
    # variable stays in env.variables, and who set it is unknown.
    assert image["defaults"] == {}
    assert "whether the image or the launcher" in found["unknown"]["image.defaults"]
    # What the inside cannot know is unknown, with the reason.
    assert image["digest"] is None and "digest" in found["unknown"]["image.digest"]
    assert image["tag"] is None and "image.tag" in found["unknown"]


def test_outside_a_container_no_image_is_claimed(tmp_path: Path) -> None:
    found = _placement(tmp_path, {"CUDA_VERSION": "12.4"})
    assert found["container"]["runtime"] is None
    assert found["image"]["libraries"] == {}
    assert "no container marker" in found["unknown"]["image"]


def test_apptainer_declares_its_environment_so_defaults_are_known(tmp_path: Path) -> None:
    env_dir = tmp_path / ".singularity.d" / "env"
    env_dir.mkdir(parents=True)
    (env_dir / "10-docker2singularity.sh").write_text(
        "#!/bin/sh\n"
        'export PATH="/usr/bin"\n'
        'export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE="${TORCH_ALLOW_TF32_CUBLAS_OVERRIDE:-"1"}"\n'
        'export NVIDIA_TF32_OVERRIDE="${NVIDIA_TF32_OVERRIDE:-"1"}"\n'
        'export CUBLAS_WORKSPACE_CONFIG="$HOME/x"\n'
    )
    env = {
        "APPTAINER_CONTAINER": "/images/pytorch_24.10.sif",
        "APPTAINER_NAME": "pytorch_24.10.sif",
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1",
        "NVIDIA_TF32_OVERRIDE": "0",
        "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
    }
    found = _placement(tmp_path, env)
    assert found["container"]["runtime"] == "apptainer"
    assert found["image"]["path"]["value"] == "/images/pytorch_24.10.sif"
    defaults = found["image"]["defaults"]
    assert defaults["TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"] == {
        "value": "1",
        "image_value": "1",
        "set_by": "image",
        "source": "file:/.singularity.d/env/10-docker2singularity.sh",
    }
    assert defaults["NVIDIA_TF32_OVERRIDE"]["set_by"] == "changed"
    # An expansion is not a literal the image declares: the launcher's value stays unknown.
    assert defaults["CUBLAS_WORKSPACE_CONFIG"]["set_by"] == "unknown"


def test_podman_states_the_image_reference(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".containerenv").write_text(
        'engine="podman-5.0.0"\nname="job"\nimage="nvcr.io/nvidia/pytorch:24.10-py3"\n'
        'imageid="4f2e9a"\n'
    )
    found = _placement(tmp_path, {})
    assert found["container"]["runtime"] == "podman"
    assert found["image"]["tag"] == {
        "value": "nvcr.io/nvidia/pytorch:24.10-py3",
        "source": "file:/run/.containerenv",
    }
    assert found["image"]["image_id"]["value"] == "4f2e9a"
    assert "image.tag" not in found["unknown"]


def test_a_slurm_allocation_is_read_from_its_variables(tmp_path: Path) -> None:
    found = _placement(tmp_path, {**SLURM_ENV, **SLURM_CREDENTIALS})
    slurm = found["slurm"]
    assert slurm["partition"] == "a100"
    assert (slurm["nodes"], slurm["ntasks"], slurm["cpus_per_task"]) == (2, 4, 8)
    assert slurm["tasks_per_node"] == "2(x2)"
    assert slurm["restart_count"] == 1
    assert slurm["gpus"]["SLURM_GPUS_PER_NODE"] == "a100:2"
    assert slurm["gpus"]["SLURM_STEP_GPUS"] == "0,1"
    # Board UUIDs are kept only as a hash, as in the env section.
    assert slurm["gpus"]["CUDA_VISIBLE_DEVICES"].startswith("GPU-#")
    assert "8a3b1c2d" not in json.dumps(found)
    assert SECRET not in json.dumps(found)


def test_outside_slurm_and_kubernetes_there_is_no_allocation(tmp_path: Path) -> None:
    found = _placement(tmp_path, {"SLURM_PROCID": "3"})
    assert found["slurm"] is None and found["kubernetes"] is None


def test_a_pod_is_read_from_its_downward_api_never_its_token(tmp_path: Path) -> None:
    env = plant_pod(tmp_path)
    found = _placement(tmp_path, env)
    pod = found["kubernetes"]
    assert pod["pod"] == {"value": "trainer-7d9f-0", "source": "env:POD_NAME"}
    assert pod["namespace"] == {
        "value": "training",
        "source": "file:/var/run/secrets/kubernetes.io/serviceaccount/namespace",
    }
    assert pod["resources"]["requests.cpu"]["value"] == "4"
    assert pod["resources"]["limits.cpu"] == {"value": "8", "source": "file:/etc/podinfo/cpu_limit"}
    assert found["container"]["runtime"] == "kubernetes"
    assert SECRET not in json.dumps(found)


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("0-3,8,10-11\n", {0, 1, 2, 3, 8, 10, 11}), ("5", {5}), ("", set()), ("x,2", {2})],
)
def test_cpu_lists_parse(text: str, cpus: set[int]) -> None:
    assert parse_cpulist(text) == cpus
    assert parse_cpulist(format_cpulist(cpus)) == cpus


def test_cpu_lists_format_compactly() -> None:
    assert format_cpulist({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11"
    assert format_cpulist([]) == ""


def test_omp_num_threads_decides_the_default_threads(tmp_path: Path) -> None:
    found = _placement(tmp_path, {"OMP_NUM_THREADS": "3,1"})
    assert found["cpu"]["default_threads"] == 3
    assert found["cpu"]["default_threads_source"] == "env:OMP_NUM_THREADS"


_CAPTURE_UNDER_AFFINITY = """
import json, os, sys
from pathlib import Path
os.sched_setaffinity(0, {0})
from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.run import build_document
context = CaptureContext.from_process(files_root=Path(sys.argv[1]))
document = build_document(names=["system", "env", "placement"], context=context, argv=["job"])
print(json.dumps(document))
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no sched_setaffinity here")
def test_a_capture_under_ngc_slurm_and_a_cpu_binding_records_them(tmp_path: Path) -> None:
    root = plant_container(tmp_path / "root", numa={0: "0-1", 1: "2-3"})
    env = {
        "PATH": os.environ.get("PATH", ""),
        **NGC_IMAGE_ENV["24.10"],
        **SLURM_ENV,
        **SLURM_CREDENTIALS,
    }
    done = subprocess.run(
        [sys.executable, "-c", _CAPTURE_UNDER_AFFINITY, str(root)],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    document = json.loads(done.stdout)
    placement = document["placement"]
    assert placement["cpu"]["cpus"] == "0" and placement["cpu"]["count"] == 1
    assert placement["cpu"]["numa_nodes"] == [0]
    assert placement["cpu"]["default_threads"] == 1
    assert document["system"]["cpu"]["usable_cores"] == 1
    assert placement["image"]["release"]["value"] == "24.10"
    assert placement["slurm"]["partition"] == "a100"
    assert placement["slurm"]["procid"] == 0
    assert SECRET not in done.stdout
