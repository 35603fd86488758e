"""Items of the noise reference that used to reach the report as low differences: the network
interface a cluster's collectives use, a lock file present on one side only, and a bump of a
package that does no arithmetic."""

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


def _bumped(name: str, imported: bool) -> tuple[dict[str, object], dict[str, object]]:
    a = base()
    b = json.loads(json.dumps(a))
    package = {
        "name": name,
        "version": "4.66.1",
        "installer": "pip",
        "source": "index",
        "url": None,
        "vcs": None,
        "commit": None,
        "imported": imported,
        "shadowed": [],
    }
    a["packages"]["installed"][name] = package
    b["packages"]["installed"][name] = {**package, "version": "4.66.5"}
    return a, b


@pytest.mark.parametrize("name", ["tqdm", "certifi", "urllib3", "typing-extensions"])
def test_a_package_that_does_no_arithmetic_is_bookkeeping_even_when_imported(name: str) -> None:
    # torch imports tqdm itself, so every torch job records it as imported.
    for target in ("bitwise", "close"):
        report = diff_documents(*_bumped(name, imported=True), target=target)
        assert [(f.rule, f.severity) for f in report.findings] == [("noise.tool-package", "info")]


def test_fsspec_is_not_a_tool_package_it_decides_which_files_a_glob_reads() -> None:
    report = diff_documents(*_bumped("fsspec", imported=True))
    assert [(f.rule, f.severity) for f in report.findings] == [("stack.package", "low")]
