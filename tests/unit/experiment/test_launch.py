"""What `run --as` and `bisect` set in the child environment, and what they leave alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.experiment.conditions import conditions_of
from envsnap.experiment.launch import prepare


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
