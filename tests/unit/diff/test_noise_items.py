"""Items of the noise reference that used to reach the report as low differences: the network
interface a cluster's collectives use, and a lock file present on one side only."""

from __future__ import annotations

import json

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.env_meaning import cannot_act
from tests.scenarios.cases import base


@pytest.mark.parametrize("name", ["NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "NCCL_IB_HCA"])
def test_an_interface_variable_on_one_side_is_bookkeeping(name: str) -> None:
    assert cannot_act(name)
    a = base()
    b = json.loads(json.dumps(a))
    b["env"]["variables"][name] = "eth0"
    report = diff_documents(a, b, target="bitwise")
    assert [(f.rule, f.severity) for f in report.findings] == [("noise.env", "info")]


def test_variables_that_choose_nccl_s_algorithm_still_act() -> None:
    assert not cannot_act("NCCL_ALGO") and not cannot_act("NCCL_PROTO")


def test_a_lock_file_on_one_side_only_is_bookkeeping() -> None:
    a = base()
    b = json.loads(json.dumps(a))
    b["packages"]["lock_files"].append({"bytes": 32, "path": "uv.lock", "sha256": "0" * 64})
    report = diff_documents(a, b, target="bitwise")
    assert {(f.rule, f.severity) for f in report.findings} == {("noise.lock-file", "info")}
