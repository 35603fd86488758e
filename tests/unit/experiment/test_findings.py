"""How `run --as` words the differences it cannot apply: the recorded run against this machine."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.experiment.findings import not_applicable_here, ranked_paths
from tests.helpers.manifests import full_pair


def _gpu_run_and_cpu_machine() -> tuple[dict[str, Any], dict[str, Any]]:
    recorded, here = full_pair()
    here["precision"]["device"] = "cpu"
    here["gpu"]["devices"] = {}
    return recorded, here


def test_not_applicable_lines_name_the_recorded_run_and_this_machine() -> None:
    recorded, here = _gpu_run_and_cpu_machine()
    lines = not_applicable_here(recorded, here)
    device = next(line for line in lines if line.startswith("the job ran on"))
    assert device.startswith("the job ran on CUDA in the recorded run and on CPU on this machine")
    tf32 = next(line for line in lines if "TF32" in line)
    assert "TF32 in the recorded run only" in tf32, tf32
    for line in lines:
        for side_letter in (" in A ", " in B ", " on A ", " on B ", " in B (", " in A and"):
            assert side_letter not in line, line


def test_the_device_difference_is_explained_as_the_device_the_run_used() -> None:
    recorded, here = _gpu_run_and_cpu_machine()
    device = next(
        line for line in not_applicable_here(recorded, here) if line.startswith("the job ran on")
    )
    assert "declared by the job's code" not in device
    assert "the device the recorded run's model and math ran on" in device, device


def test_diff_still_names_its_sides_a_and_b() -> None:
    recorded, here = _gpu_run_and_cpu_machine()
    titles = {f.rule: f.title for f in diff_documents(recorded, here).findings}
    assert titles["hw.device"] == "the job ran on CUDA in A and on CPU in B"
    assert titles["precision.tf32-effective"].startswith("fp32 convolutions run as TF32 on A only")
    swapped = {f.rule: f.title for f in diff_documents(here, recorded).findings}
    assert swapped["hw.device"] == "the job ran on CPU in A and on CUDA in B"
    assert swapped["precision.tf32-effective"].startswith("fp32 convolutions run as TF32 on B only")


def test_bookkeeping_is_neither_a_bisect_candidate_nor_listed_as_not_applicable() -> None:
    a, b = full_pair()
    b["run"]["pid"] = int(a["run"]["pid"] or 0) + 1
    for record in b["collectors"].values():
        record["duration_ms"] = float(record.get("duration_ms") or 0) + 7.5
    b["env"]["variables"]["OMP_NUM_THREADS"] = "3"
    paths = [item.path for item in ranked_paths(a, b)]
    assert any("OMP_NUM_THREADS" in path for path in paths), paths
    assert not [path for path in paths if path.startswith(("collectors.", "run.pid"))], paths
