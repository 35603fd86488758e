"""Bisect treats the fp32_precision levels (oneDNN's bf16 on the CPU among them) as runtime
settings it applies, like float32_matmul_precision: the settings the differ's CPU precision
finding (`op_precision`) rests on, never a property of the torch build."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from envsnap.experiment import startup
from envsnap.experiment.bisect import BisectOptions, bisect
from envsnap.experiment.conditions import conditions_of, differing, keys_for_path
from envsnap.experiment.launch import plan_for
from envsnap.manifest.effective import cpu_settings, fp32_precision_path
from tests.unit.diff.test_cpu_precision import _cpu_job_pair

LEAF = "torch:fp32_precision.mkldnn.matmul"


def _bf16_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = _cpu_job_pair()
    b["torch"]["fp32_precision"]["mkldnn.matmul"] = "bf16"
    return a, b


def test_the_cpu_precision_finding_rests_on_settings_bisect_can_apply() -> None:
    a, b = _bf16_pair()
    finding = next(f for f in diff_documents(a, b).findings if f.rule == "precision.cpu-fp32")
    assert [key for e in finding.evidence for key in keys_for_path(e.path)][:1] == [LEAF]
    assert keys_for_path(fp32_precision_path("mkldnn.matmul")) == [LEAF]
    # The mkldnn level is one setting, not the parent of mkldnn.matmul.
    assert keys_for_path(fp32_precision_path("mkldnn")) == ["torch:fp32_precision.mkldnn"]
    derived = keys_for_path(finding.path)  # torch.effective.cpu.matmul_fp32
    assert derived == [key for path in cpu_settings("matmul") for key in keys_for_path(path)]
    assert "torch:matmul.float32_matmul_precision" in derived
    assert differing(conditions_of(a), conditions_of(b)) == [LEAF]


def test_the_run_plan_sets_the_recorded_levels_when_the_job_imports_torch() -> None:
    _, b = _bf16_pair()
    flags = plan_for(conditions_of(b), packages=False, base_env={}).hook_config["torch"]
    assert flags["fp32_precision.mkldnn.matmul"] == "bf16"
    assert flags["fp32_precision.generic"] == "none"
    assert flags["matmul.float32_matmul_precision"] == "highest"


class _Level:
    """A torch.backends node that records every fp32_precision it is given."""

    def __init__(self, log: list[tuple[str, str]], name: str, **children: Any) -> None:
        self.__dict__.update(children, _log=log, _name=name, fp32_precision="none")

    def __setattr__(self, attr: str, value: Any) -> None:
        self._log.append((self._name, value))
        self.__dict__[attr] = value


def _fake_torch(log: list[tuple[str, str]]) -> Any:
    leaves = {op: _Level(log, f"mkldnn.{op}") for op in ("matmul", "conv", "rnn")}
    torch = type("Torch", (), {})()
    torch.backends = _Level(log, "generic", mkldnn=_Level(log, "mkldnn", **leaves))
    return torch


def test_the_hook_sets_parents_before_leaves_whatever_the_config_order() -> None:
    log: list[tuple[str, str]] = []
    torch = _fake_torch(log)
    flags = {"fp32_precision.mkldnn.matmul": "bf16", "fp32_precision.mkldnn": "ieee"}
    outcome = startup.apply_torch(torch, flags, None)
    assert outcome == dict.fromkeys(flags, "applied")
    assert log == [("mkldnn", "ieee"), ("mkldnn.matmul", "bf16")]
    assert torch.backends.mkldnn.matmul.fp32_precision == "bf16"
    refused = startup.apply_torch(torch, {"fp32_precision.generic": "__import__('os')"}, None)
    assert refused["fp32_precision.generic"].startswith("failed: refused")


FAKE_TORCH = """
from types import SimpleNamespace as _N
backends = _N(fp32_precision="none", mkldnn=_N(fp32_precision="none",
    matmul=_N(fp32_precision="none"), conv=_N(fp32_precision="none"),
    rnn=_N(fp32_precision="none")))
"""
JOB = """
import sys
sys.path.insert(0, {where!r})
import torch
bf16 = torch.backends.mkldnn.matmul.fp32_precision == "bf16"
print("metric:", 0.017 if bf16 else 3e-06)
"""


def test_bisect_confirms_the_cpu_bf16_setting_by_applying_it(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    job = tmp_path / "job.py"
    job.write_text(JOB.format(where=str(fake)), encoding="utf-8")
    a, b = _bf16_pair()
    options = BisectOptions(
        argv=(sys.executable, str(job)),
        work_dir=tmp_path / "work",
        pattern=re.compile(r"^metric: (\S+)$", re.MULTILINE),
        max_runs=8,
        timeout_s=120.0,
        base_env=dict(os.environ),
    )
    report = bisect(a, b, options)
    assert report.verdict == "confirmed", report.summary
    assert report.confirmed == [LEAF]
    assert (report.metric_a, report.metric_b) == (3e-06, 0.017)
    assert not [item for item in report.not_applicable if "fp32" in item.path]
