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
