"""The startup hook applies flags right after the job imports torch, and imports nothing else.

A stand-in `torch` package keeps this fast; the real torch is exercised by the acceptance tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.experiment.conditions import conditions_of
from envsnap.experiment.launch import hook_events, prepare

FAKE_TORCH = """
threads = [1]
dtype = ['torch.float32']
seeded = []
def get_num_threads(): return threads[0]
def set_num_threads(n): threads[0] = n
def get_default_dtype(): return dtype[0]
def set_default_dtype(d): dtype[0] = 'torch.' + d
float64 = 'float64'
def manual_seed(s): seeded.append(s)
class version: cuda = None
"""
JOB = """
import sys
print('torch imported at start:', 'torch' in sys.modules)
import random
first = random.random()
import torch
print(torch.get_num_threads(), torch.get_default_dtype(), torch.seeded, first)
"""


@pytest.mark.slow
def test_flags_are_applied_when_torch_is_imported(tmp_path: Path) -> None:
    (tmp_path / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    job = tmp_path / "job.py"
    job.write_text(JOB, encoding="utf-8")
    document = {
        "torch": {"num_threads": 3, "default_dtype": "torch.float64"},
        "seeds": {"master_seed": 5, "derived": {"python": 11, "torch": 12}},
    }
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)
    plan = prepare(conditions_of(document), tmp_path / "run", packages=None, base_env=env)
    done = subprocess.run(
        [sys.executable, str(job)], env=plan.env, capture_output=True, text=True, timeout=60,
        check=True, cwd=tmp_path,
    )  # fmt: skip
    import random

    random.seed(11)
    expected = random.random()
    lines = done.stdout.splitlines()
    assert lines[0] == "torch imported at start: False"
    assert lines[1] == f"3 torch.float64 [12] {expected}"
    events = hook_events(tmp_path / "run")
    torch_event = next(e for e in events if e["event"] == "torch")
    assert torch_event["flags"]["num_threads"] == "applied"
    assert plan.env["ENVSNAP_MASTER_SEED"] == "5"
    config = json.loads((tmp_path / "run" / "hook" / "config.json").read_text(encoding="utf-8"))
    assert config["torch"] == {"default_dtype": "torch.float64", "num_threads": 3}


def _hooked_env(tmp_path: Path, config: object) -> dict[str, str]:
    """Environment of a job run with the hook and `config` written as is, before the stand-in."""
    from envsnap.experiment import startup
    from envsnap.experiment.launch import _write_hook

    (tmp_path / "fake").mkdir(exist_ok=True)
    (tmp_path / "fake" / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    hook = _write_hook(tmp_path / "run", {})
    (hook / "config.json").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(hook), str(tmp_path / "fake")])
    env[startup.CONFIG_ENV] = str(hook / "config.json")
    env[startup.LOG_ENV] = str(tmp_path / "run" / "hook.jsonl")
    return env


def _run_code(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.mark.slow
def test_flags_are_applied_when_torch_is_imported_after_an_availability_probe(
    tmp_path: Path,
) -> None:
    env = _hooked_env(tmp_path, {"torch": {"num_threads": 3}})
    code = (
        "import importlib.util, sys\n"
        "assert importlib.util.find_spec('torch') is not None\n"
        "print('torch' in sys.modules)\n"
        "import torch\n"
        "print(torch.get_num_threads())\n"
    )
    done = _run_code(code, env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", "3"]
    events = hook_events(tmp_path / "run")
    assert [e["flags"] for e in events if e["event"] == "torch"] == [{"num_threads": "applied"}]


@pytest.mark.slow
def test_a_bad_torch_seed_is_logged_and_torch_still_imports(tmp_path: Path) -> None:
    env = _hooked_env(tmp_path, {"torch": {"num_threads": 3}, "seed": {"torch": "abc"}})
    done = _run_code("import torch; print(torch.get_num_threads(), torch.seeded)", env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3 []"
    torch_event = next(e for e in hook_events(tmp_path / "run") if e["event"] == "torch")
    assert torch_event["flags"]["num_threads"] == "applied"
    assert torch_event["flags"]["seed"].startswith("failed: ValueError")


@pytest.mark.slow
def test_a_bad_python_seed_is_logged_and_the_job_runs(tmp_path: Path) -> None:
    env = _hooked_env(tmp_path, {"seed": {"python": "abc"}})
    done = _run_code("print('ran')", env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran"
    start = next(e for e in hook_events(tmp_path / "run") if e["event"] == "start")
    assert start["seed_python"].startswith("failed: ValueError")


@pytest.mark.slow
@pytest.mark.parametrize("config", [[1], {"torch": [1]}, {"seed": 7}])
def test_a_malformed_config_is_logged_and_the_shadowed_sitecustomize_still_runs(
    tmp_path: Path, config: object
) -> None:
    env = _hooked_env(tmp_path, config)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import builtins\nbuiltins.SITE_RAN = 1\n")
    env["PYTHONPATH"] += os.pathsep + str(site)
    done = _run_code("import builtins, torch; print(builtins.SITE_RAN)", env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    assert any("error" in e for e in hook_events(tmp_path / "run")), hook_events(tmp_path / "run")
