"""What the numerics probe measured confirms, rules out or stands beside the recorded causes."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.probe_evidence import compare_probes
from tests.helpers import REPO_ROOT
from tests.helpers.manifests import full_pair

pytest.importorskip("torch")

Doc = dict[str, Any]


@cache
def _cpu_probe() -> Doc:
    from envsnap.probe import run_probe

    return run_probe(["cpu"])


def _with_probe(doc: Doc) -> Doc:
    doc["probe"] = {"unknown": {}, **copy.deepcopy(_cpu_probe())}
    return doc


def _pair() -> tuple[Doc, Doc]:
    a, b = full_pair()
    return _with_probe(a), _with_probe(b)


def test_identical_probes_measure_every_family_and_find_no_difference() -> None:
    a, b = _pair()
    measured = compare_probes(a, b)
    assert {m.family for m in measured} >= {"matmul_fp32", "conv2d_fp32", "threads", "rng"}
    assert not any(m.differs for m in measured)
    assert not [f for f in diff_documents(a, b).findings if f.path.startswith("probe.")]


def test_a_mechanism_whose_families_measured_identical_is_ruled_out_and_ranked_down() -> None:
    a, b = _pair()
    b["torch"]["num_threads"] = a["torch"]["num_threads"] + 4
    finding = next(f for f in diff_documents(a, b).findings if f.rule == "env.threads")
    assert "probe: identical multi-threaded reduction on cpu" in finding.title
    assert finding.rank_reason is not None and "ruled out by the probe" in finding.rank_reason
    plain_a, plain_b = full_pair()  # the same difference, no probe on either side
    plain_b["torch"]["num_threads"] = plain_a["torch"]["num_threads"] + 4
    unprobed = next(f for f in diff_documents(plain_a, plain_b).findings)
    assert (unprobed.rule, unprobed.severity) == ("env.threads", "low")
    assert finding.severity == "info"


def test_identical_torch_probes_never_rule_out_a_thread_variable_other_blas_pools_read() -> None:
    # OPENBLAS_NUM_THREADS sizes the OpenBLAS pool numpy and scipy use, which the probe does not
    # run: an identical torch reduction says nothing about it.
    a, b = _pair()
    a["env"]["variables"]["OPENBLAS_NUM_THREADS"] = "2"
    finding = next(f for f in diff_documents(a, b).findings if f.rule == "env.threads")
    assert "probe: identical" not in finding.title
    assert finding.severity == "low"


def test_a_family_neither_probe_could_run_is_not_measured() -> None:
    a, b = _pair()
    ops = a["probe"]["devices"]["cpu"]["ops"]
    lacking = {op["family"] for op in ops.values() if op["status"] != "ok"}
    assert lacking, "the CPU probe runs every op; nothing here to test"
    families = {m.family for m in compare_probes(a, b)}
    assert families and not families & lacking


def test_identical_probes_never_rule_out_an_sdpa_backend_selection() -> None:
    """The probe pins each backend; which one the job's dispatch picks it does not measure."""
    a, b = _pair()
    plain_a, plain_b = full_pair()
    for side in (b, plain_b):
        side["torch"]["sdpa"]["cudnn"] = not side["torch"]["sdpa"]["cudnn"]
    probed = next(f for f in diff_documents(a, b).findings if f.rule == "algo.sdpa")
    unprobed = next(f for f in diff_documents(plain_a, plain_b).findings if f.rule == "algo.sdpa")
    assert "probe:" not in probed.title
    assert probed.severity == unprobed.severity


def test_a_family_that_differs_with_no_recorded_cause_is_a_finding_of_its_own() -> None:
    a, b = _pair()
    b["probe"]["devices"]["cpu"]["ops"]["matmul_fp32_square"]["digest"] = "0" * 16
    findings = [f for f in diff_documents(a, b).findings if f.rule == "probe.numerics"]
    assert len(findings) == 1
    assert findings[0].title.startswith("measured: fp32 matmul on cpu computes other bits")
    assert findings[0].path == "probe.devices.cpu.ops.matmul_fp32_square.digest"
    assert findings[0].severity == "medium"


def test_a_difference_the_probe_confirms_carries_it_as_evidence_and_leads_its_equals() -> None:
    a, b = _pair()
    b["torch"]["num_threads"] = a["torch"]["num_threads"] + 4
    b["env"]["variables"]["SOME_UNLISTED_KNOB"] = "1"  # a low generic difference beside it
    b["probe"]["devices"]["cpu"]["ops"]["sum_threads_n"]["digest"] = "0" * 16
    findings = diff_documents(a, b).findings
    threads = next(f for f in findings if f.rule == "env.threads")
    assert "probe: other bits from multi-threaded reduction on cpu" in threads.title
    assert "probe.devices.cpu.ops.sum_threads_n.digest" in [e.path for e in threads.evidence]
    assert threads.rank_reason is not None and "confirmed by the probe" in threads.rank_reason
    assert not [f for f in findings if f.rule == "probe.numerics"]  # folded into its cause
    knob = next(f for f in findings if f.path == "env.variables.SOME_UNLISTED_KNOB")
    assert threads.severity == knob.severity and threads.rank < knob.rank


def test_probes_of_another_suite_are_not_compared() -> None:
    a, b = _pair()
    b["probe"]["suite"] = "envsnap-probe/0"
    b["probe"]["devices"]["cpu"]["ops"]["matmul_fp32_square"]["digest"] = "0" * 16
    assert compare_probes(a, b) == []
    rules = {f.rule for f in diff_documents(a, b).findings}
    assert "probe.numerics" not in rules and "probe.incomparable" in rules


def _capture(tmp_path: Path, name: str, threads: str) -> Doc:
    """A real job in its own process: same script, same argv; only OMP_NUM_THREADS differs."""
    script = tmp_path / "job.py"
    script.write_text(
        "import sys, torch, envsnap\n"
        "model = torch.nn.Linear(64, 64)\n"
        "envsnap.capture(sys.argv[1], model=model, only=['torch', 'env', 'probe', 'python'])\n"
    )
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "OMP_NUM_THREADS": threads, "PYTHONPATH": str(REPO_ROOT / "src")}
    subprocess.run(
        [sys.executable, str(script), str(out)], cwd=tmp_path, env=env, check=True, timeout=120
    )
    document: Doc = json.loads(out.read_text())
    return document


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two CPUs to run two threads")
def test_two_real_captures_differing_in_thread_count_rank_it_first_citing_the_probe(
    tmp_path: Path,
) -> None:
    a, b = _capture(tmp_path, "a", "1"), _capture(tmp_path, "b", "2")
    measured = {m.family: m.differs for m in compare_probes(a, b)}
    assert measured["threads"] is True
    top = diff_documents(a, b).findings[0]
    assert top.rule == "env.threads"
    assert "probe.devices.cpu.ops.sum_threads_n.digest" in [e.path for e in top.evidence]
    assert "probe:" in top.title
