"""The `system` collector: cpuinfo parsing, ISA selection, cgroup limits, and the live host."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from envsnap.capturing.collectors.system import (
    cgroup_limits,
    collect,
    parse_cpuinfo,
    select_isa_flags,
)
from tests.helpers import capture_context

X86_CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse4_2 avx avx2 fma f16c avx512f avx512_bf16 amx_tile amx_bf16 avx_vnni ht
physical id\t: 0
core id\t\t: 0

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse4_2 avx avx2 fma f16c avx512f avx512_bf16 amx_tile amx_bf16 avx_vnni ht
physical id\t: 0
core id\t\t: 0

processor\t: 2
physical id\t: 1
core id\t\t: 0
"""

ARM_CPUINFO = """\
processor\t: 0
BogoMIPS\t: 2000.00
Features\t: fp asimd evtstrm aes sve sve2 bf16 i8mm
CPU implementer\t: 0x41
"""


def test_parse_x86_cpuinfo() -> None:
    vendor, model, flags, physical = parse_cpuinfo(X86_CPUINFO)
    assert vendor == "GenuineIntel"
    assert model == "Intel(R) Xeon(R) Platinum 8480+"
    assert physical == 2  # two hyperthreads of one core on socket 0, one core on socket 1
    assert select_isa_flags(flags) == [
        "amx_bf16",
        "amx_tile",
        "avx",
        "avx2",
        "avx512_bf16",
        "avx512f",
        "avx_vnni",
        "f16c",
        "fma",
        "sse4_2",
    ]


def test_parse_arm_cpuinfo() -> None:
    vendor, model, flags, physical = parse_cpuinfo(ARM_CPUINFO)
    assert vendor == "ARM implementer 0x41"
    assert model is None and physical is None
    assert select_isa_flags(flags) == ["asimd", "bf16", "i8mm", "sve", "sve2"]


def test_cgroup_v2_limits(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    job = tmp_path / "job.slice"
    job.mkdir()
    (job / "cpu.max").write_text("250000 100000\n")
    (job / "memory.max").write_text("8589934592\n")
    assert cgroup_limits(tmp_path, "0::/job.slice\n") == (2, 2.5, 8589934592)
    (job / "cpu.max").write_text("max 100000\n")
    (job / "memory.max").write_text("max\n")
    assert cgroup_limits(tmp_path, "0::/job.slice\n") == (2, None, None)


def test_cgroup_v1_limits(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "memory").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("400000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    (tmp_path / "memory" / "memory.limit_in_bytes").write_text(str(1 << 62))
    assert cgroup_limits(tmp_path, None) == (1, 4.0, None)
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    (tmp_path / "memory" / "memory.limit_in_bytes").write_text("1073741824\n")
    assert cgroup_limits(tmp_path, None) == (1, None, 1073741824)


def test_no_cgroup_filesystem(tmp_path: Path) -> None:
    assert cgroup_limits(tmp_path, None) == (None, None, None)


def test_live_host(tmp_path: Path) -> None:
    system = collect(capture_context(tmp_path))
    assert system.os == platform.system()
    assert system.kernel == platform.release()
    assert system.cpu.architecture == platform.machine()
    assert system.cpu.logical_cores == os.cpu_count()
    assert system.cpu.isa_flags == sorted(system.cpu.isa_flags)
    if platform.system() != "Linux":
        pytest.skip("the remaining facts are read from /proc")
    assert system.cpu.model and system.cpu.vendor
    assert system.memory_total_bytes and system.memory_total_bytes > 0
    assert system.libc and system.libc.startswith("glibc")
    assert system.cpu.usable_cores == len(os.sched_getaffinity(0))
