"""`system`: OS and distribution, kernel, libc, CPU and ISA flags, memory, container limits."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.manifest.records import Container, Cpu, SystemSection

# ISA extensions that change which kernels oneDNN, MKL, ATen or NumPy dispatch to.
_ISA_EXACT = frozenset(
    {
        "avx",
        "avx2",
        "fma",
        "f16c",
        "sse4_2",
        "avx_vnni",
        "avx_vnni_int8",
        "asimd",
        "asimdhp",
        "sve",
        "sve2",
        "sme",
        "bf16",
        "i8mm",
        "fphp",
        "neon",
    }
)
_ISA_PREFIXES = ("avx512", "amx")


def select_isa_flags(flags: set[str]) -> list[str]:
    return sorted(f for f in flags if f in _ISA_EXACT or f.startswith(_ISA_PREFIXES))


def parse_cpuinfo(text: str) -> tuple[str | None, str | None, set[str], int | None]:
    """Vendor, model, flags and physical core count from /proc/cpuinfo text."""
    vendor = model = None
    flags: set[str] = set()
    cores: set[tuple[str, str]] = set()
    physical_id = core_id = None
    for line in [*text.splitlines(), ""]:
        key, _, value = (part.strip() for part in line.partition(":"))
        if not line.strip():
            if core_id is not None:
                cores.add((physical_id or "0", core_id))
            physical_id = core_id = None
            continue
        if key == "vendor_id" and vendor is None:
            vendor = value
        elif key == "CPU implementer" and vendor is None:
            vendor = f"ARM implementer {value}"
        elif key in ("model name", "Model", "cpu model") and model is None:
            model = value
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            core_id = value
    return vendor, model, flags, (len(cores) or None)


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _cpu(context: CaptureContext, unknown: dict[str, str]) -> Cpu:
    vendor: str | None = None
    model: str | None = None
    flags: set[str] = set()
    physical: int | None = None
    system = platform.system()
    if system == "Linux":
        text = _read("/proc/cpuinfo")
        if text is None:
            unknown["cpu"] = "/proc/cpuinfo is not readable"
        else:
            vendor, model, flags, physical = parse_cpuinfo(text)
    elif system == "Darwin":
        try:
            out = context.run(["sysctl", "-a"], timeout=2.0).stdout
            values = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
            model = values.get("machdep.cpu.brand_string")
            vendor = values.get("machdep.cpu.vendor", "Apple" if "Apple" in (model or "") else None)
            physical = int(values["hw.physicalcpu"]) if "hw.physicalcpu" in values else None
            flags = {
                k.rsplit(".", 1)[-1].lower()
                for k, v in values.items()
                if k.startswith("hw.optional.") and v.strip() == "1"
            }
            flags |= {f.lower() for f in values.get("machdep.cpu.features", "").split()}
        except (OSError, ValueError) as exc:
            unknown["cpu"] = f"sysctl failed: {exc}"
    else:
        model = platform.processor() or None
        unknown["cpu.isa_flags"] = f"ISA flags are not read on {system}"
    usable: int | None
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return Cpu(
        vendor=vendor,
        model=model,
        architecture=platform.machine(),
        isa_flags=select_isa_flags(flags),
        logical_cores=os.cpu_count(),
        physical_cores=physical,
        usable_cores=usable,
    )


def _os_release() -> str | None:
    system = platform.system()
    if system == "Darwin":
        version = platform.mac_ver()[0]
        return f"macOS {version}" if version else None
    if system == "Windows":
        return f"Windows {platform.release()} ({platform.version()})"
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        text = _read(path)
        if text:
            match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.MULTILINE)
            if match:
                return match.group(1)
    return None


def _libc() -> str | None:
    try:
        value = os.confstr("CS_GNU_LIBC_VERSION")
        if value:
            return value
    except (AttributeError, ValueError, OSError):
        pass
    name, version = platform.libc_ver()
    return f"{name} {version}" if name else None


def _memory_total() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


_UNLIMITED_BYTES = 1 << 60  # cgroup v1 reports "no limit" as a huge number


def cgroup_limits(
    root: Path, self_cgroup: str | None
) -> tuple[int | None, float | None, int | None]:
    """(cgroup version, CPU limit in cores, memory limit in bytes) under a cgroup fs `root`."""
    if (root / "cgroup.controllers").exists():
        relative = "/"
        for line in (self_cgroup or "").splitlines():
            if line.startswith("0::"):
                relative = line[3:].strip() or "/"
        candidates = [root / relative.lstrip("/"), root]
        cpu = memory = None
        for directory in candidates:
            cpu_max = _read(directory / "cpu.max") if cpu is None else None
            if cpu_max:
                quota, period = cpu_max.split()[0], cpu_max.split()[-1]
                if quota != "max":
                    cpu = round(int(quota) / int(period), 3)
            mem_max = _read(directory / "memory.max") if memory is None else None
            if mem_max and mem_max.strip() != "max":
                memory = int(mem_max.strip())
        return 2, cpu, memory
    quota_text = _read(root / "cpu" / "cpu.cfs_quota_us") or _read(
        root / "cpu,cpuacct" / "cpu.cfs_quota_us"
    )
    period_text = _read(root / "cpu" / "cpu.cfs_period_us") or _read(
        root / "cpu,cpuacct" / "cpu.cfs_period_us"
    )
    mem_text = _read(root / "memory" / "memory.limit_in_bytes")
    if quota_text is None and mem_text is None:
        return None, None, None
    cpu_limit = None
    if quota_text and period_text and int(quota_text) > 0:
        cpu_limit = round(int(quota_text) / int(period_text), 3)
    memory_limit = int(mem_text) if mem_text and int(mem_text) < _UNLIMITED_BYTES else None
    return 1, cpu_limit, memory_limit


def _container(context: CaptureContext, unknown: dict[str, str]) -> Container:
    runtime = None
    if Path("/.dockerenv").exists():
        runtime = "docker"
    elif Path("/run/.containerenv").exists():
        runtime = "podman"
    if context.env.get("KUBERNETES_SERVICE_HOST"):
        runtime = "kubernetes"
    cgroup_text = _read("/proc/1/cgroup") or ""
    if runtime is None and re.search(r"docker|containerd|kubepods|lxc", cgroup_text):
        runtime = "lxc" if "lxc" in cgroup_text else "docker"
    version = cpu = memory = None
    if platform.system() == "Linux":
        try:
            version, cpu, memory = cgroup_limits(Path("/sys/fs/cgroup"), _read("/proc/self/cgroup"))
        except (OSError, ValueError, IndexError) as exc:
            unknown["container"] = f"cgroup limits unreadable: {exc}"
    return Container(
        runtime=runtime, cgroup_version=version, cpu_limit=cpu, memory_limit_bytes=memory
    )


def collect(context: CaptureContext) -> SystemSection:
    unknown: dict[str, str] = {}
    uname = platform.uname()
    return SystemSection(
        os=uname.system,
        os_release=_os_release(),
        kernel=uname.release,
        libc=_libc(),
        hostname=uname.node or None,
        cpu=_cpu(context, unknown),
        memory_total_bytes=_memory_total(),
        container=_container(context, unknown),
        unknown=unknown,
    )


COLLECTOR = Collector(name="system", collect=collect, timeout_s=3.0, description="OS and CPU")
