"""Identical environments give identical probes: in one process and across processes."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from envsnap.probe import run_probe


def fingerprint(record: dict[str, Any]) -> dict[str, Any]:
    """Everything but the timings: what two identical environments must share."""
    return {
        device: {"name": entry["name"], "threads": entry["threads"], "ops": entry["ops"]}
        for device, entry in record["devices"].items()
    }


def test_twenty_calls_in_one_process_give_identical_digests() -> None:
    first = fingerprint(run_probe())
    assert sum(op["digest"] is not None for op in first["cpu"]["ops"].values()) >= 19
    for _ in range(19):
        assert fingerprint(run_probe()) == first


_CHILD = """
import json
from envsnap.probe import run_probe
print(json.dumps(run_probe()))
"""


@pytest.mark.slow
def test_two_fresh_processes_give_identical_digests() -> None:
    records = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", _CHILD],
                capture_output=True,
                text=True,
                timeout=240,
                check=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert fingerprint(records[0]) == fingerprint(records[1])
    assert records[0]["devices"]["cpu"]["ops"]["matmul_fp32_square"]["digest"]
