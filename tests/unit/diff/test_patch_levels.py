"""A patch step of the platform within one release series is info; across series it acts."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.report import Report
from tests.helpers.manifests import full_pair


def _finding(report: Report, rule: str) -> Any:
    return next(finding for finding in report.findings if finding.rule == rule)


def _pair(**edits: tuple[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for dotted, (left, right) in edits.items():
        section, name = dotted.split(".")
        a[section][name], b[section][name] = left, right
    return a, b


@pytest.mark.parametrize(
    ("kernel_a", "kernel_b"),
    [("5.15.0-91-generic", "5.15.0-97-generic"), ("6.8.0-60-generic", "6.8.0-31-generic")],
)
def test_another_build_of_one_kernel_release_is_info(kernel_a: str, kernel_b: str) -> None:
    a, b = _pair(**{"system.kernel": (kernel_a, kernel_b)})
    for target in ("bitwise", "close", "conclusion"):
        finding = _finding(diff_documents(a, b, target=target), "env.os")
        assert finding.severity == "info"
    assert "(another build of kernel " in _finding(diff_documents(a, b), "env.os").title


def test_another_kernel_release_keeps_the_os_rule_s_severity() -> None:
    a, b = _pair(**{"system.kernel": ("5.15.0-91-generic", "6.8.0-31-generic")})
    assert _finding(diff_documents(a, b), "env.os").severity == "low"


def test_a_point_release_is_info_for_close_and_low_for_bitwise() -> None:
    a, b = _pair(**{"system.os_release": ("Ubuntu 22.04.3 LTS", "Ubuntu 22.04.5 LTS")})
    close = _finding(diff_documents(a, b), "env.os")
    assert close.severity == "info"
    assert close.title.endswith("(a point release within 22.04)")
    assert _finding(diff_documents(a, b, target="bitwise"), "env.os").severity == "low"


@pytest.mark.parametrize(
    ("release_a", "release_b"),
    [
        ("Ubuntu 20.04.6 LTS", "Ubuntu 22.04.3 LTS"),  # another Ubuntu release
        ("Debian GNU/Linux 11 (bullseye)", "Debian GNU/Linux 12 (bookworm)"),
        ("Ubuntu 22.04.3 LTS", "Debian GNU/Linux 12 (bookworm)"),
        ("macOS 14.1", "macOS 14.2"),  # a macOS update brings another Accelerate
    ],
)
def test_a_release_across_series_keeps_its_severity(release_a: str, release_b: str) -> None:
    a, b = _pair(**{"system.os_release": (release_a, release_b)})
    assert _finding(diff_documents(a, b), "env.os").severity == "low"


def test_a_driver_patch_within_its_branch_is_info_and_another_branch_is_not() -> None:
    patch = _pair(
        **{
            "gpu.driver_version": ("535.104.05", "535.129.03"),
            "gpu.nvml_version": ("12.535.104.05", "12.535.129.03"),
        }
    )
    finding = _finding(diff_documents(*patch), "stack.driver")
    assert finding.severity == "info"
    assert finding.title.endswith("(a patch within driver branch 535)")
    assert _finding(diff_documents(*patch, target="bitwise"), "stack.driver").severity == "low"
    branch = _pair(
        **{
            "gpu.driver_version": ("535.104.05", "545.29.06"),
            "gpu.nvml_version": ("12.535.104.05", "12.545.29.06"),
        }
    )
    assert _finding(diff_documents(*branch), "stack.driver").severity == "low"
