"""The `seeds` section: what was declared through envsnap, and the RNG state actually observed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from envsnap.capturing.api import capture
from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.collectors.seeds import collect
from envsnap.training.seeding import SeedManager, manager


def _context(tmp_path: Path, **inputs: object) -> CaptureContext:
    return CaptureContext(env={"PYTHONHASHSEED": "0"}, cwd=tmp_path, inputs=inputs, in_job=True)


def test_a_manager_passed_as_seeds_is_recorded_with_its_level_and_flags(tmp_path: Path) -> None:
    seeds = SeedManager(1234, rank=3)
    # apply() sets CUBLAS_WORKSPACE_CONFIG for the process; later tests must not inherit it.
    workspace = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    seeds.apply("deterministic", warn_only=True)
    try:
        section = collect(_context(tmp_path, seeds=seeds))
    finally:
        torch.use_deterministic_algorithms(False)
        torch.backends.cudnn.deterministic = False
        if workspace is None:
            os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)
        else:
            os.environ["CUBLAS_WORKSPACE_CONFIG"] = workspace
    assert section.declared_by == "argument"
    assert (section.master_seed, section.rank, section.level) == (1234, 3, "deterministic")
    assert section.derived == seeds.seeded
    assert section.derived["torch"] == seeds.derive("torch")
    assert section.seeded == ["numpy", "python", "torch"]
    assert section.flags is not None
    assert section.flags.cudnn_benchmark is False
    assert section.flags.cublas_workspace_config == ":4096:8"
    assert section.torch_imported is True
    assert section.torch_initial_seed == seeds.derive("torch")
    assert section.cuda_initialized is False
    assert section.cuda_initial_seeds is None  # never read unless CUDA is initialised
    assert section.pythonhashseed == "0"
    assert set(section.state_digests) == {"python", "numpy", "torch"}


def test_the_last_manager_applied_in_the_process_is_used(tmp_path: Path) -> None:
    previous = manager.last_applied()
    try:
        SeedManager(77).seed_all()
        section = collect(_context(tmp_path))
        assert (section.declared_by, section.master_seed, section.level) == (
            "process",
            77,
            "seeded",
        )
        manager.set_last_applied(None)
        section = collect(_context(tmp_path))
        assert (section.declared_by, section.master_seed, section.level) == (None, None, None)
    finally:
        manager.set_last_applied(previous)


def test_a_bare_int_declares_only_the_master_seed(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, seeds=5))
    assert (section.declared_by, section.master_seed, section.derived) == ("argument", 5, {})


def test_a_wrong_type_is_recorded_as_unknown(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, seeds="42"))
    assert section.master_seed is None
    assert "expected an envsnap SeedManager" in section.unknown["master_seed"]


def test_state_digests_follow_the_rng_state(tmp_path: Path) -> None:
    random.seed(1)
    torch.manual_seed(1)
    first = collect(_context(tmp_path)).state_digests
    assert collect(_context(tmp_path)).state_digests == first  # reading does not advance
    random.random()
    after_python = collect(_context(tmp_path)).state_digests
    assert after_python["python"] != first["python"]
    assert after_python["torch"] == first["torch"]
    torch.rand(1)
    assert collect(_context(tmp_path)).state_digests["torch"] != first["torch"]


def test_in_job_capture_records_seeds(tmp_path: Path) -> None:
    seeds = SeedManager(9)
    seeds.seed_all()
    manifest = capture(tmp_path / "m.json", seeds=seeds, only=["seeds"])
    assert manifest.seeds is not None and manifest.seeds.master_seed == 9
    written = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert written["seeds"]["derived"]["torch"] == seeds.derive("torch")


@pytest.mark.slow
def test_capture_without_torch_neither_imports_it_nor_guesses(tmp_path: Path) -> None:
    code = (
        "import sys, json, envsnap\n"
        "m = envsnap.capture(only=['seeds'])\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'numpy': 'numpy' in sys.modules,"
        " 'seeds': m.seeds.model_dump(mode='json')}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["torch"] is False and result["numpy"] is False
    seeds = result["seeds"]
    assert seeds["torch_imported"] is False
    assert seeds["torch_initial_seed"] is None and seeds["cuda_initialized"] is None
    assert seeds["pythonhashseed"] is None
    assert list(seeds["state_digests"]) == ["python"]


def test_a_capture_from_outside_the_job_records_no_rng_state(tmp_path: Path) -> None:
    """The CLI's own RNG state says nothing about the job and differs on every capture."""
    from envsnap.capturing.collectors.seeds import collect

    outside = CaptureContext(env={"PYTHONHASHSEED": "0"}, cwd=tmp_path)
    section = collect(outside)
    assert section.state_digests == {}
    assert section.torch_initial_seed is None
    assert "outside the job" in section.unknown["state_digests"]
    assert section.pythonhashseed == "0"
