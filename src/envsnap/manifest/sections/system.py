"""The `system` section: operating system, CPU, memory and container limits."""

from __future__ import annotations

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class Cpu(Model):
    vendor: str | None = Field(description="CPU vendor id (GenuineIntel, AuthenticAMD, ...).")
    model: str | None = Field(description="CPU model name.")
    architecture: str | None = Field(
        description="Machine architecture (x86_64, aarch64, arm64); null when a record does not "
        "state it."
    )
    isa_flags: list[str] = Field(
        description="ISA extensions that change which kernels run (avx2, avx512*, amx*, fma, "
        "neon/sve...), sorted."
    )
    logical_cores: int | None = Field(description="Logical CPUs in the machine.")
    physical_cores: int | None = Field(description="Physical cores, counted from topology.")
    usable_cores: int | None = Field(description="CPUs this process may run on (affinity mask).")


class Container(Model):
    runtime: str | None = Field(
        description="Container runtime detected (docker, podman, kubernetes, lxc) or null."
    )
    cgroup_version: int | None = Field(description="1 or 2, or null when no cgroup fs is mounted.")
    cpu_limit: float | None = Field(description="CPU quota in cores (cgroup), null when unlimited.")
    memory_limit_bytes: int | None = Field(description="cgroup memory limit; null when unlimited.")


class SystemSection(Section):
    os: str = Field(description="Operating system (Linux, Darwin, Windows).")
    os_release: str | None = Field(description="Distribution name and version, e.g. Debian 12.")
    kernel: str | None = Field(
        description="Kernel release; null when a record does not state it (a collect_env report "
        "on macOS names the macOS release, not the kernel)."
    )
    libc: str | None = Field(description="C library and version, e.g. glibc 2.36.")
    hostname: str | None = Field(
        description="Host name (noise for comparisons, useful for locating)."
    )
    cpu: Cpu = Field(description="Processor facts.")
    memory_total_bytes: int | None = Field(description="Physical memory.")
    container: Container = Field(description="Container and cgroup limits.")
