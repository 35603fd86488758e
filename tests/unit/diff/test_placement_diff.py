"""The differ on placement: an image change is one finding naming what it moves, an allocation
change joins the GPU finding it causes, an affinity change leads to its thread count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.run import build_document
from envsnap.diff import diff_documents
from envsnap.diff.report import SEVERITY_RANK, TARGETS, Report
from tests.helpers import REPO_ROOT
from tests.helpers.placement import NGC_IMAGE_ENV, SLURM_ENV, plant_container
from tests.scenarios.cases import H100, base, edits, noise

SECTIONS = ["system", "env", "placement", "python"]


def _capture(root: Path, env: dict[str, str]) -> dict[str, Any]:
    context = CaptureContext(env=env, cwd=root, files_root=root)
    return build_document(names=SECTIONS, context=context, argv=["train.py"])


def _above_noise(report: Report, rule: str) -> None:
    finding = next(f for f in report.findings if f.rule == rule)
    for other in report.findings:
        if other.category == "noise":
            assert other.rank > finding.rank
            assert SEVERITY_RANK[other.severity] <= SEVERITY_RANK[finding.severity]


@pytest.mark.parametrize("target", TARGETS)
def test_an_ngc_release_change_is_the_top_finding_naming_what_it_moves(
    tmp_path: Path, target: str
) -> None:
    root = plant_container(tmp_path)
    a = _capture(root, {**NGC_IMAGE_ENV["24.10"], **SLURM_ENV})
    b = _capture(root, {**NGC_IMAGE_ENV["24.11"], **SLURM_ENV, "SLURM_JOB_ID": "5151"})
    report = diff_documents(a, b, target=target)  # type: ignore[arg-type]
    top = report.findings[0]
    assert top.rule == "placement.image"
    assert top.title.startswith("container image changed: NGC PyTorch 24.10 → NGC PyTorch 24.11")
    for moved in ("cuDNN 9.5.0.50 → 9.5.1.17", "NCCL 2.22.3 → 2.23.4", "CUDA 12.6.2.004"):
        assert moved in top.title
    paths = {e.path for e in top.evidence}
    assert {"env.variables.CUDNN_VERSION", "placement.image.libraries.cudnn.value"} <= paths
    # One finding: the image's variables are not reported again on their own.
    assert [f.rule for f in report.findings].count("placement.image") == 1
    assert not any(f.path.startswith("env.variables.CUDNN") for f in report.findings[1:])
    assert all(e.inferred is None for e in top.evidence)
    _above_noise(report, "placement.image")


def test_with_only_the_release_recorded_the_moves_come_from_the_table_marked_inferred(
    tmp_path: Path,
) -> None:
    stated = {"NVIDIA_PRODUCT_NAME": "PyTorch"}
    a = _capture(tmp_path, {**stated, "NVIDIA_PYTORCH_VERSION": "24.10"})
    b = _capture(tmp_path, {**stated, "NVIDIA_PYTORCH_VERSION": "24.11"})
    top = diff_documents(a, b).findings[0]
    assert top.rule == "placement.image"
    assert "torch 2.5.0a0+e000cf0ad9 → 2.6.0a0+df5bbc09d1" in top.title
    assert "inferred from the NGC release table's sources" in top.title
    torch = next(e for e in top.evidence if e.path == "placement.image.libraries.torch.value")
    assert torch.inferred is not None and "docs.nvidia.com" in torch.inferred
    release = next(e for e in top.evidence if e.path == "placement.image.release.value")
    assert (release.a, release.b, release.inferred) == ("24.10", "24.11", None)


def test_each_inferred_library_cites_the_source_that_states_it(tmp_path: Path) -> None:
    # 25.04's torch build comes from the Triton matrix, its libraries from another source.
    a = _capture(tmp_path, {"NVIDIA_PYTORCH_VERSION": "25.04"})
    b = _capture(tmp_path, {"NVIDIA_PYTORCH_VERSION": "25.06"})
    top = diff_documents(a, b).findings[0]
    assert top.rule == "placement.image"
    assert "cuDNN 9.9.0.52 → 9.10.2.21" in top.title
    by_path = {e.path: e for e in top.evidence}
    torch = by_path["placement.image.libraries.torch.value"]
    cudnn = by_path["placement.image.libraries.cudnn.value"]
    assert torch.inferred is not None and "docs.nvidia.com" in torch.inferred
    assert cudnn.inferred is not None and "install_tensorrt.sh" in cudnn.inferred
    assert "docs.nvidia.com" not in cudnn.inferred


def test_a_release_the_table_does_not_know_names_no_library(tmp_path: Path) -> None:
    a = _capture(tmp_path, {"NVIDIA_PYTORCH_VERSION": "24.09"})
    b = _capture(tmp_path, {"NVIDIA_PYTORCH_VERSION": "24.10"})
    top = diff_documents(a, b).findings[0]
    assert top.rule == "placement.image"
    assert "moves" not in top.title
    assert all(e.inferred is None for e in top.evidence)


_CAPTURE_BOUND = """
import json, os, sys
from pathlib import Path
os.sched_setaffinity(0, {int(cpu) for cpu in sys.argv[2].split(",")})
from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.run import build_document
context = CaptureContext.from_process(files_root=Path(sys.argv[1]))
print(json.dumps(build_document(names=SECTIONS, context=context, argv=["train.py"])))
"""


def _bound_capture(root: Path, cpus: str) -> dict[str, Any]:
    script = _CAPTURE_BOUND.replace("SECTIONS", repr(SECTIONS))
    done = subprocess.run(
        [sys.executable, "-c", script, str(root), cpus],
        env={"PATH": os.environ.get("PATH", ""), **SLURM_ENV},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    document: dict[str, Any] = json.loads(done.stdout)
    return document


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two CPUs to bind to",
)
def test_an_affinity_change_leads_to_the_thread_count_above_noise(tmp_path: Path) -> None:
    first, second = sorted(os.sched_getaffinity(0))[:2]
    root = plant_container(tmp_path, numa={0: f"{first},{second}"})
    a = _bound_capture(root, f"{first},{second}")
    b = _bound_capture(root, str(first))
    assert a["placement"]["cpu"]["count"] == 2 and b["placement"]["cpu"]["count"] == 1
    report = diff_documents(a, b)
    threads = next(f for f in report.findings if f.rule == "env.threads")
    assert "2 → 1 threads" in threads.title
    assert threads.severity != "info"
    assert {"placement.cpu.cpus", "system.cpu.usable_cores"} <= {e.path for e in threads.evidence}
    _above_noise(report, "env.threads")
    affinity = next(f for f in report.findings if f.rule == "placement.affinity")
    assert affinity.rank > threads.rank


def test_a_partition_change_joins_the_gpu_finding_and_the_gpu_leads() -> None:
    a = base()
    b = json.loads(json.dumps(a))
    H100(b)
    edits(
        ("placement.slurm.partition", "h100"),
        ("placement.slurm.gpus.SLURM_GPUS_PER_NODE", "h100:2"),
    )(b)
    noise(b)
    for target in TARGETS:
        report = diff_documents(a, b, target=target)  # type: ignore[arg-type]
        gpu = [f for f in report.findings if f.rule in ("hw.gpu", "placement.allocation")]
        assert len(gpu) == 1, [(f.rule, f.title) for f in report.findings]
        assert gpu[0].rule == "hw.gpu" and gpu[0].title.startswith("GPU changed")
        evidence = {e.path: (e.a, e.b) for e in gpu[0].evidence}
        assert evidence["placement.slurm.partition"] == ("a100", "h100")


def test_an_allocation_change_without_another_gpu_is_its_own_finding() -> None:
    a = base()
    b = json.loads(json.dumps(a))
    edits(("placement.slurm.partition", "a100-long"), ("placement.slurm.ntasks", 16))(b)
    noise(b)
    report = diff_documents(a, b, target="bitwise")
    top = report.findings[0]
    assert top.rule == "placement.allocation"
    assert top.title == "scheduler allocation changed: partition a100 → a100-long, ntasks 8 → 16"
    assert not any(f.rule == "fallback" for f in report.findings)


def test_job_step_and_node_names_are_bookkeeping() -> None:
    a = base()
    b = json.loads(json.dumps(a))
    edits(
        ("placement.slurm.job_id", "777"),
        ("placement.slurm.step_id", "3"),
        ("placement.slurm.node_name", "train-node-09"),
        ("placement.slurm.procid", 5),
        ("placement.slurm.restart_count", 4),
    )(b)
    report = diff_documents(a, b, target="bitwise")
    assert {f.rule for f in report.findings} == {"noise.placement"}
    assert all(f.severity == "info" for f in report.findings)


def test_a_job_id_on_one_side_only_is_bookkeeping_not_an_allocation(tmp_path: Path) -> None:
    bare = _capture(tmp_path, {"PATH": os.environ.get("PATH", "")})
    job = _capture(tmp_path, {"PATH": os.environ.get("PATH", ""), "SLURM_JOB_ID": "75731987"})
    assert job["placement"]["slurm"]["job_id"] == "75731987"
    report = diff_documents(bare, job, target="bitwise")
    slurm = [f for f in report.findings if f.path.startswith("placement.slurm")]
    assert slurm and all((f.rule, f.severity) == ("noise.placement", "info") for f in slurm)
    assert "placement.allocation" not in {f.rule for f in report.findings}
