"""The probe collector: on by default in a job that imported torch, asked for from the CLI,
run alone after the other collectors, and never starting CUDA."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import envsnap
from envsnap.capturing.collectors.probe import NOT_ASKED
from envsnap.probe import PROBE_SUITE
from tests.helpers import REPO_ROOT

torch = pytest.importorskip("torch")


def test_the_in_job_capture_probes_the_cpu_by_default() -> None:
    document = envsnap.capture(only=["probe"]).to_document()
    probe = document["probe"]
    assert probe["suite"] == PROBE_SUITE and probe["torch"] == torch.__version__
    cpu = probe["devices"]["cpu"]
    assert cpu["status"] == "ok"
    assert cpu["ops"]["matmul_fp32_square"]["digest"]
    if not torch.cuda.is_available():
        assert list(probe["devices"]) == ["cpu"]


def test_probe_false_leaves_it_out_with_the_reason() -> None:
    document = envsnap.capture(only=["probe"], probe=False).to_document()
    assert "probe" not in document or document["probe"] is None
    assert document["collectors"]["probe"] == {
        "status": "skipped",
        "reason": NOT_ASKED,
        "duration_ms": document["collectors"]["probe"]["duration_ms"],
    }


def test_an_exclusive_collector_starts_only_after_the_concurrent_ones_end() -> None:
    """The probe sets one thread for a moment: a `torch` collector running beside it could
    record that count as the job's."""
    from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
    from envsnap.capturing.run import _collect

    times: dict[str, float] = {}

    def slow(context: CaptureContext) -> Any:
        time.sleep(0.3)
        times["slow_done"] = time.monotonic()
        raise CollectorUnavailable("done")

    def alone(context: CaptureContext) -> Any:
        times["alone_start"] = time.monotonic()
        raise CollectorUnavailable("done")

    registry = {
        "probe": Collector(name="probe", collect=alone, exclusive=True),
        "torch": Collector(name="torch", collect=slow),
    }
    context = CaptureContext(env={}, cwd=Path.cwd(), deadline=time.monotonic() + 10)
    outcomes = _collect(["probe", "torch"], context, registry)
    assert list(outcomes) == ["probe", "torch"]  # the manifest's order, not the run order
    assert times["alone_start"] >= times["slow_done"]


def test_the_probe_leaves_the_thread_count_the_torch_collector_records() -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        document = envsnap.capture(only=["torch", "probe"]).to_document()
        assert document["torch"]["num_threads"] == 2
        assert document["probe"]["devices"]["cpu"]["threads"] == 2
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def _cli(*args: str, cwd: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "--only", "probe", *args],
        cwd=cwd,
        env={"PYTHONPATH": str(REPO_ROOT / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    document: dict[str, object] = json.loads(done.stdout)
    return document


def test_the_cli_probes_only_when_asked(tmp_path: Path) -> None:
    plain = _cli(cwd=tmp_path)
    assert plain.get("probe") is None
    assert plain["collectors"]["probe"]["reason"] == NOT_ASKED  # type: ignore[index]
    asked = _cli("--probe", cwd=tmp_path)
    assert asked["probe"]["devices"]["cpu"]["status"] == "ok"  # type: ignore[index]
