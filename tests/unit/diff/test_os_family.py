"""Another OS family is another C runtime and other builds of compiled packages: its ways join
the OS finding (`env.os-runtime`), which then ranks as a library change; a step within one OS
stays a low environment finding."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.report import Finding
from tests.helpers.manifests import full_pair


def _os_finding(a: dict[str, Any], b: dict[str, Any], target: str = "close") -> Finding:
    findings = diff_documents(a, b, target=target).findings  # type: ignore[arg-type]
    return next(f for f in findings if f.rule == "env.os")


def test_linux_to_windows_acts_through_the_c_runtime_and_numpys_default_integer() -> None:
    a, b = full_pair()
    b["system"]["os"] = "Windows"
    found = _os_finding(a, b)
    assert found.severity == "medium"
    assert "env.os-runtime" in found.rules
    assert "another C runtime" in found.title
    # numpy 1.26 on Windows: its default integer is the 32-bit C long.
    assert "numpy's default integer is 32-bit on Windows" in found.title


def _macos_numpy_2(release: str) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for doc in (a, b):
        doc["packages"]["installed"]["numpy"]["version"] = "2.2.6"
    b["system"].update(os="Darwin", os_release=release)
    b["system"]["cpu"]["architecture"] = "arm64"
    return a, b


def test_numpy_2_on_macos_14_links_accelerate_where_linux_links_openblas() -> None:
    found = _os_finding(*_macos_numpy_2("macOS 14.5"))
    assert "numpy's BLAS OpenBLAS → Accelerate" in found.title
    assert any(e.inferred for e in found.evidence if e.path == "packages.installed.numpy.version")


def test_numpy_2_wheels_for_macos_before_14_link_openblas_like_linux() -> None:
    assert "numpy's BLAS" not in _os_finding(*_macos_numpy_2("macOS 13.6")).title
    # No macOS release recorded: the wheel cannot be told, so nothing is inferred.
    assert "numpy's BLAS" not in _os_finding(*_macos_numpy_2("")).title


def test_a_conda_numpy_on_windows_keeps_its_32_bit_integer_but_says_nothing_of_blas() -> None:
    a, b = full_pair()
    b["system"]["os"] = "Windows"
    b["packages"]["installed"]["numpy"]["installer"] = "conda"
    found = _os_finding(a, b)
    assert "numpy's default integer is 32-bit on Windows" in found.title
    assert "numpy's BLAS" not in found.title


def test_a_malformed_os_value_is_no_family_change() -> None:
    a, b = full_pair()
    b["system"]["os"] = ["Windows"]
    assert "env.os-runtime" not in {rule for f in diff_documents(a, b).findings for rule in f.rules}


def test_the_family_change_outranks_a_generic_package_step_of_equal_severity() -> None:
    a, b = full_pair()
    b["system"]["os"] = "Darwin"
    b["packages"]["installed"]["numpy"]["version"] = "1.26.5"
    found = {f.rule: f for f in diff_documents(a, b).findings}
    assert found["env.os"].severity == found["stack.numpy"].severity == "medium"
    assert found["env.os"].rank < found["stack.numpy"].rank


def test_a_step_within_one_os_stays_low() -> None:
    a, b = full_pair()
    b["system"]["os_release"] = "Ubuntu 24.04.1 LTS"
    found = _os_finding(a, b)
    assert found.severity == "low"
    assert found.rules == ["env.os"]


def test_a_device_change_outranks_another_os_family_it_ties_with() -> None:
    # A Mac drawing on the CPU against a Linux box drawing on CUDA: both medium for close and
    # both change kernels; the device reaches every op (and the generator of seeded draws),
    # the OS its C runtime, so the device comes first whatever the rule ids' order.
    a, b = full_pair()
    a["system"]["os"] = "Darwin"
    a["precision"]["device"] = "cpu"
    b["precision"]["device"] = "cuda"
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert {"hw.device", "env.os"} <= set(rules)
    assert rules.index("hw.device") < rules.index("env.os")
    assert _os_finding(a, b).severity == next(
        f.severity for f in diff_documents(a, b).findings if f.rule == "hw.device"
    )
