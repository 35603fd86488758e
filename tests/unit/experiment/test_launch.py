"""What `run --as` and `bisect` set in the child environment, and what they leave alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.experiment.conditions import conditions_of
from envsnap.experiment.launch import launch, prepare


def _recorded() -> dict[str, Any]:
    """The env section of a run recorded on another machine, under a launcher."""
    return {
        "env": {
            "variables": {
                "OMP_NUM_THREADS": "8",
                "LD_LIBRARY_PATH": "/opt/other/cuda/lib64",
                "PYTHONPATH": "/srv/other/src",
                "WORLD_SIZE": "8",
                "RANK": "3",
                "MASTER_ADDR": "10.0.0.1",
                "MASTER_PORT": "29500",
                "CUDA_VISIBLE_DEVICES": "4,5,6,7",
                "HF_ENDPOINT": "https://<redacted>@hub.internal.example",
            },
            "prefixes": ["OMP_", "CUDA_", "HF_"],
            "names": ["LD_LIBRARY_PATH", "PYTHONPATH", "WORLD_SIZE", "RANK"],
            "redacted": [],
        }
    }


def test_machine_and_launcher_bound_variables_are_reported_not_applied(tmp_path: Path) -> None:
    here = {
        "PATH": "/usr/bin",
        "LD_LIBRARY_PATH": "/here/lib",
        "CUDA_HOME": "/usr/local/cuda",
        "HF_HOME": "/here/hf",
        "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz0123",
    }
    plan = prepare(conditions_of(_recorded()), tmp_path / "run", packages=None, base_env=here)
    assert plan.env["OMP_NUM_THREADS"] == "8"
    # This machine's locations and credentials stay; the other machine's are not imposed.
    assert plan.env["LD_LIBRARY_PATH"] == "/here/lib"
    for name in ("CUDA_HOME", "HF_HOME", "HF_TOKEN"):
        assert plan.env.get(name) == here[name], name
    assert "/srv/other/src" not in plan.env["PYTHONPATH"]
    # A launcher's layout or GPU selection would make a single job wait for 8 ranks or see
    # no GPU at all.
    for name in ("WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT", "CUDA_VISIBLE_DEVICES"):
        assert name not in plan.env, name
    assert not any("<redacted>" in value for value in plan.env.values())
    skipped = "\n".join(plan.not_applied)
    for name in ("LD_LIBRARY_PATH", "WORLD_SIZE", "CUDA_VISIBLE_DEVICES", "HF_ENDPOINT"):
        assert f"env:{name}" in skipped, name


def test_a_finding_whose_setting_is_applied_is_not_called_not_applicable() -> None:
    """The seed finding rests on the master seed (applied) and on RNG digests (not
    applicable on their own); it was applied, so it is not listed as not applicable."""
    from envsnap.diff import diff_documents
    from envsnap.experiment.findings import not_applicable
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    b["seeds"]["master_seed"] = 99
    b["seeds"]["state_digests"]["torch"] = "sha256:" + "7" * 64
    b["gpu"]["devices"]["0"]["name"] = "NVIDIA A40"
    lines = not_applicable(diff_documents(a, b).findings)
    assert not any("seed" in line for line in lines), lines
    assert any("A40" in line or "GPU" in line for line in lines), lines


def test_a_non_integer_recorded_seed_is_not_applicable_and_not_written(tmp_path: Path) -> None:
    document = {"seeds": {"master_seed": 5, "derived": {"torch": True, "python": 11}}}
    plan = prepare(conditions_of(document), tmp_path, packages=None, base_env={})
    assert plan.hook_config["seed"]["python"] == 11
    assert "torch" not in plan.hook_config["seed"]
    assert any(line.startswith("seed torch: True is not an integer") for line in plan.not_applied)


def test_a_non_integer_master_seed_applies_no_seed(tmp_path: Path) -> None:
    conditions = conditions_of({"seeds": {"master_seed": 5}})
    conditions.values["seed"].value["master_seed"] = "5"
    plan = prepare(conditions, tmp_path, packages=None, base_env={})
    assert "seed" not in plan.hook_config
    assert "ENVSNAP_MASTER_SEED" not in plan.env
    assert any(line.startswith("seed master_seed: '5'") for line in plan.not_applied)


# A parent that starts a sleeping child (as torchrun starts its workers), writes the child's
# pid, then sleeps itself.
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(child.pid))
import os; os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    """Whether pid runs (a zombie awaiting its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return not _alive(pid)


def _wait_for_pid(path: Path, seconds: float = 30) -> int:
    deadline = time.monotonic() + seconds
    while not path.is_file():
        assert time.monotonic() < deadline, "the parent never started its child"
        time.sleep(0.05)
    return int(path.read_text())


def _kill_leftover(pid: int) -> None:
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
@pytest.mark.parametrize("capture", [False, True])
def test_a_timeout_kills_the_commands_children_too(tmp_path: Path, capture: bool) -> None:
    run_dir = tmp_path / "run"
    plan = prepare(conditions_of({}), run_dir, packages=None, base_env=dict(os.environ))
    pid_file = tmp_path / "child.pid"
    argv = [sys.executable, "-c", PARENT, str(pid_file)]
    outcome = launch(argv, plan, run_dir, timeout_s=3, capture=capture)
    child = _wait_for_pid(pid_file)
    try:
        assert outcome.timed_out
        assert _gone_within(child, 10), "the command's child survived the timeout"
    finally:
        _kill_leftover(child)


DRIVER = """
import os, sys
from pathlib import Path
from envsnap.experiment.conditions import conditions_of
from envsnap.experiment.launch import launch, prepare
run_dir = Path(sys.argv[1])
plan = prepare(conditions_of({}), run_dir, packages=None, base_env=dict(os.environ))
launch([sys.executable, "-c", sys.argv[2], sys.argv[3]], plan, run_dir, timeout_s=300,
       capture=False)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_launch_kills_the_whole_process_group(
    tmp_path: Path, signum: signal.Signals
) -> None:
    pid_file = tmp_path / "child.pid"
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path / "run"), PARENT, str(pid_file)]
    )
    try:
        child = _wait_for_pid(pid_file)
        driver.send_signal(signum)
        assert driver.wait(timeout=30) != 0
        assert _gone_within(child, 10), "the command's child survived the interrupt"
    finally:
        driver.kill()
        driver.wait()
        if pid_file.is_file():
            _kill_leftover(int(pid_file.read_text()))
