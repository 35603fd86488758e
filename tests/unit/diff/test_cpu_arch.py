"""One instruction set under each OS's name for it; a platform move as one finding."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.cpu_arch import instruction_set, same_instruction_set
from tests.helpers.manifests import full_pair

_ARCH = "system.cpu.architecture"


def _on(doc: dict[str, Any], family: str, release: str, machine: str) -> None:
    doc["system"]["os"] = family
    doc["system"]["os_release"] = release
    doc["system"]["cpu"]["architecture"] = machine


@pytest.mark.parametrize(
    ("a", "b"), [("AMD64", "x86_64"), ("arm64", "aarch64"), ("i686", "x86"), ("X86_64", "amd64")]
)
def test_names_of_one_instruction_set_are_the_same(a: str, b: str) -> None:
    assert instruction_set(a) == instruction_set(b)
    assert same_instruction_set(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("x86_64", "arm64"),
        ("x86_64", "ppc64le"),
        ("x86", "x86"),
        ("armv8l", "aarch64"),
        ("armv7l", "arm64"),
        ("s390x", "x86_64"),
    ],
)
def test_other_instruction_sets_or_equal_names_are_not_a_spelling(a: str, b: str) -> None:
    assert not same_instruction_set(a, b)


def test_windows_and_linux_on_one_cpu_are_not_an_architecture_change() -> None:
    a, b = full_pair()
    _on(a, "Windows", "Windows 10", "AMD64")
    _on(b, "Linux", "Ubuntu 22.04.4 LTS", "x86_64")
    findings = diff_documents(a, b, target="close").findings
    arch = next(f for f in findings if f.path == _ARCH)
    assert arch.severity == "info"
    assert "one instruction set" in arch.title
    assert findings[0].rule == "env.os"


def test_an_architecture_change_on_one_os_family_stays_its_own_finding() -> None:
    a, b = full_pair()
    _on(a, "Linux", "Ubuntu 22.04.4 LTS", "x86_64")
    _on(b, "Linux", "Ubuntu 22.04.4 LTS", "aarch64")
    findings = diff_documents(a, b, target="close").findings
    arch = next(f for f in findings if f.path == _ARCH)
    assert (arch.rule, arch.severity) == ("hw.cpu-arch", "medium")


def test_a_move_to_another_platform_is_one_finding_naming_both() -> None:
    # A Linux x86-64 server against an Apple Silicon Mac: one move, not two findings whose
    # order only their rule ids would decide.
    a, b = full_pair()
    _on(a, "Linux", "Ubuntu 22.04.4 LTS", "x86_64")
    _on(b, "Darwin", "macOS 14.5", "arm64")
    findings = diff_documents(a, b, target="close").findings
    top = findings[0]
    assert top.rule == "env.os"
    assert {"env.os", "env.os-runtime", "hw.cpu-arch"} <= set(top.rules)
    assert "the CPU architecture with it, x86-64 → arm64" in top.title
    assert not [f for f in findings[1:] if "hw.cpu-arch" in f.rules]


def test_a_platform_move_on_one_instruction_set_adds_no_architecture() -> None:
    a, b = full_pair()
    _on(a, "Windows", "Windows 11", "AMD64")
    _on(b, "Linux", "Ubuntu 22.04.4 LTS", "x86_64")
    top = diff_documents(a, b, target="close").findings[0]
    assert "hw.cpu-arch" not in top.rules
    assert "CPU architecture" not in top.title
