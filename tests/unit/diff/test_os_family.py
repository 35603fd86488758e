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


def test_numpy_2_on_macos_arm64_links_accelerate_where_linux_links_openblas() -> None:
    a, b = full_pair()
    for doc in (a, b):
        doc["packages"]["installed"]["numpy"]["version"] = "2.2.6"
    b["system"]["os"] = "Darwin"
    b["system"]["cpu"]["architecture"] = "arm64"
    found = _os_finding(a, b)
    assert "numpy's BLAS OpenBLAS → Accelerate" in found.title
    assert any(e.inferred for e in found.evidence if e.path == "packages.installed.numpy.version")


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
