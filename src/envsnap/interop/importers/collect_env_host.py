"""The machine a collect_env report describes: GPUs, Python, OS and CPU, environment variables."""

from __future__ import annotations

import ast
import re
from typing import Any

from envsnap.interop.importers.collect_env_reading import COULD_NOT_COLLECT, Reading, is_na
from envsnap.interop.importers.devices import complete, first_devices, from_name
from envsnap.interop.importers.platform import MACHINES, libc_from, parse_platform

_GPU_RE = re.compile(r"^GPU (?P<index>\d{1,9}): (?P<name>.+)$")
_UUID_SUFFIX = " (UUID: "
_OS_MACHINE = re.compile(rf"\s*\((?P<machine>{MACHINES})\)$")
# A Debian/Ubuntu multiarch library directory names the machine it was built for, and a host
# loads only its own (libcudnn under /usr/lib/aarch64-linux-gnu on a Jetson).
_MULTIARCH = re.compile(r"/lib/(?P<triplet>x86_64|aarch64|powerpc64le|s390x)-linux-gnu/")
_TRIPLET_MACHINE = {"powerpc64le": "ppc64le"}
# The OS line of a Linux report names its distribution ("Ubuntu 16.04.5 LTS", "CentOS Linux 7").
_LINUX_OS = re.compile(
    r"\b(Linux|Ubuntu|Debian|CentOS|Red Hat|RHEL|Fedora|Rocky|AlmaLinux|openSUSE|SUSE|"
    r"Amazon Linux|Arch Linux|Alpine|Oracle Linux|Gentoo|Manjaro|Pop!_OS)\b",
    re.IGNORECASE,
)
_ROCM_ARCH = re.compile(r"\((gfx[0-9a-f]+)[^)]*\)\s*$")
PRINTED_VARIABLES = (
    "collect_env report prints only CUDA_MODULE_LOADING and the caching allocator config"
)
ALLOCATOR_VARIABLES = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF")


def _without_uuid(match: re.Match[str]) -> str:
    """The name before a trailing " (UUID: ...)" (the first one after the last ")" inside).

    Found with str methods: a lazy regex for it takes time quadratic in the line's length.
    """
    name = match["name"]
    if not name.endswith(")"):
        return name
    cut = name.find(_UUID_SUFFIX, name.rfind(")", 0, len(name) - 1) + 1)
    return name[:cut] if cut > 0 else name


def _devices(reading: Reading, lines: list[str]) -> dict[str, dict[str, Any]]:
    devices: dict[str, dict[str, Any]] = {}
    for line in lines:
        match = _GPU_RE.match(line)
        if match:
            devices[match["index"]] = {"index": int(match["index"]), "name": _without_uuid(match)}
    if devices:
        reading.out.put("gpu", "device_count", len(devices))
        return devices
    # ROCm and macOS print one device name (ROCm with its gcnArch) and no count.
    name = " ".join(lines)
    arch = _ROCM_ARCH.search(name)
    devices["0"] = {"index": 0, "name": re.sub(r"\s*\(gfx[^)]*\)\s*$", "", name)}
    if arch:
        devices["0"]["arch"] = arch.group(1)
    reading.out.put_unknown(
        "gpu", "device_count", "collect_env report names only the first GPU here"
    )
    return devices


def _device(reading: Reading, key: str, device: dict[str, Any]) -> None:
    """What the name (and, on ROCm, the LLVM target printed with it) says, via the GPU tables."""
    target = device.pop("arch", None)
    device.update(from_name(device["name"], target))
    if device["compute_capability"] is None:
        amd = device["arch"] is not None and str(device["arch"]).startswith("gfx")
        why = (
            "an AMD GPU has no CUDA compute capability (its LLVM target is in arch)"
            if amd
            else f"not stated in collect_env report; {device['name']!r} is not in the GPU table"
        )
        reading.out.note_unknown("gpu", f"devices.{key}.compute_capability", why)
    complete(reading.out, key, device)


def map_gpu(reading: Reading) -> None:
    """The gpu section from "GPU models and configuration" and the driver line."""
    lines = reading.report.blocks.get("gpus")
    if not lines or lines[0] in ("Could not collect", "No CUDA"):
        return
    devices = first_devices(reading.out, _devices(reading, lines))
    for key, device in devices.items():
        _device(reading, key, device)
    reading.out.put("gpu", "devices", devices)
    reading.out.put("gpu", "driver_version", reading.known("gpu", "driver_version", "driver"))
    for name in ("cuda_driver_version", "nvml_version", "cuda_visible_devices"):
        reading.out.put_unknown("gpu", name)
    reading.out.put_unknown("gpu", "cuda_device_order")
    reading.out.note_unknown("gpu", "visible")
    reading.out.note_unknown("gpu", "links")


def map_python(reading: Reading) -> None:
    """Version and compiler from "Python version: 3.10.12 (main, ...) [GCC 11.4.0] (64-bit...)"."""
    raw = reading.known("python", "version", "python_version")
    if raw is None:
        return
    match = re.match(r"^(\d+\.\d+(?:\.\d+)?\S*)", raw)
    reading.out.put("python", "version", match.group(1) if match else raw)
    compiler = re.search(r"\[([^\]]+)\]", raw)
    if compiler:
        reading.out.put("python", "compiler", compiler.group(1).strip())
    else:
        reading.out.put_unknown("python", "compiler")
    bits = re.search(r"\((\d+)-bit runtime\)", raw)
    if bits:
        reading.fact("python_bits", int(bits.group(1)))


def _os(reading: Reading) -> tuple[str | None, str | None]:
    """(os, machine) from the OS line: 'Ubuntu 22.04.3 LTS (x86_64)', 'macOS 14.1 (arm64)'."""
    os_line = reading.known("system", "os_release", "os")
    if not os_line:
        return None, None
    system: str | None = None
    machine: str | None = None
    arch = _OS_MACHINE.search(os_line)
    if arch:
        machine = arch["machine"]
        os_line = os_line[: arch.start()]
    reading.out.put("system", "os_release", os_line)
    if os_line.startswith(("macOS", "Mac OSX")):
        system = "Darwin"
    elif "Windows" in os_line:
        system = "Windows"
    elif _LINUX_OS.search(os_line):
        system = "Linux"  # a Linux distribution names itself (old reports print no platform)
    return system, machine


def _multiarch_machine(reading: Reading) -> str | None:
    """The machine a report names only through its library paths (1.x reports print no
    architecture): one triplet across every cuDNN path, kept in the facts as where it came
    from; None when there is none or they disagree."""
    triplets = {
        match["triplet"]
        for line in reading.report.blocks.get("cudnn") or []
        if (match := _MULTIARCH.search(line))
    }
    if len(triplets) != 1:
        return None
    triplet = triplets.pop()
    reading.fact("machine_from", f"the cuDNN library path (/lib/{triplet}-linux-gnu/)")
    return _TRIPLET_MACHINE.get(triplet, triplet)


def map_system(reading: Reading) -> None:
    """OS, kernel, libc and CPU; hostname, memory and container limits are never stated."""
    system, machine = _os(reading)
    platform_line = reading.value("python_platform")
    stated = parse_platform(platform_line) if platform_line else {}
    system = stated.get("os") or system
    machine = machine or stated.get("machine") or _multiarch_machine(reading)
    libc_raw = reading.value("libc")
    libc = (libc_from(libc_raw) if libc_raw else None) or stated.get("libc")
    if libc is not None:
        reading.out.put("system", "libc", libc)
        system = system or "Linux"
    elif libc_raw and is_na(libc_raw):
        reading.out.put("system", "libc", None)  # not a Linux libc
    else:
        reading.out.put_unknown("system", "libc")
    for name, value in (("os", system), ("kernel", stated.get("kernel"))):
        if value is None:
            reading.out.put_unknown("system", name)
        else:
            reading.out.put("system", name, value)
    reading.out.put_unknown("system", "hostname")
    reading.out.put_unknown("system", "memory_total_bytes")
    reading.out.put("system", "cpu", _cpu(reading, machine))
    reading.out.put_unknown_container()


def _cpu_pairs(lines: list[str]) -> dict[str, str]:
    """`lscpu` (Linux) or `wmic` (Windows) key/value lines; a wrapped flag list is rejoined."""
    pairs: dict[str, str] = {}
    last: str | None = None
    for line in lines:
        key, sep, value = line.partition(":") if ":" in line else line.partition("=")
        if sep and key.strip() and not key.strip().startswith("-"):
            last = key.strip().lower()
            pairs.setdefault(last, value.strip())
        elif last == "flags":
            pairs["flags"] = f"{pairs['flags']} {line.strip()}"
    return pairs


def _cpu(reading: Reading, machine: str | None) -> dict[str, Any]:
    from envsnap.capturing.collectors.system import select_isa_flags

    lines = reading.report.blocks.get("cpu") or []
    pairs = _cpu_pairs(lines)
    single = [line for line in lines if ":" not in line and "=" not in line]
    model = pairs.get("model name") or pairs.get("name")
    if model is None and len(lines) == 1 and single:
        model = single[0]  # macOS prints only the brand string
    cores, sockets = pairs.get("core(s) per socket"), pairs.get("socket(s)")
    both_digits = cores and sockets and (cores + sockets).isdigit()
    logical = pairs.get("cpu(s)")
    architecture = pairs.get("architecture")
    cpu: dict[str, Any] = {
        "vendor": pairs.get("vendor id") or pairs.get("manufacturer"),
        "model": model if model and model != "None" else None,
        "architecture": architecture if architecture and not architecture.isdigit() else machine,
        "isa_flags": select_isa_flags(set(pairs["flags"].split())) if "flags" in pairs else [],
        "logical_cores": int(logical) if logical and logical.isdigit() else None,
        "physical_cores": int(cores or 0) * int(sockets or 0) if both_digits else None,
        "usable_cores": None,
    }
    for name, value in cpu.items():
        if value is None:
            reading.out.note_unknown("system", f"cpu.{name}")
    if "flags" not in pairs:
        reading.out.note_unknown("system", "cpu.isa_flags")
    return cpu


def map_env(reading: Reading) -> None:
    """CUDA_MODULE_LOADING and the allocator configuration, the only variables reports print."""
    loading = reading.value("cuda_module_loading")
    allocator = reading.value("allocator")
    if loading is None and allocator is None:
        return
    variables: dict[str, str] = {}
    names: list[str] = []
    if loading is not None:
        names.append("CUDA_MODULE_LOADING")
        if loading == "Could not collect" or is_na(loading):
            reading.out.note_unknown(
                "env", "variables.CUDA_MODULE_LOADING", f"collect_env report: {loading}"
            )
        elif loading:
            variables["CUDA_MODULE_LOADING"] = loading
    if allocator is not None:
        names += ALLOCATOR_VARIABLES
        if allocator not in ("N/A", "Could not collect", "{}"):
            variables.update(_allocator(reading, allocator))
        elif allocator == "Could not collect":
            reading.out.note_unknown("env", "variables.PYTORCH_CUDA_ALLOC_CONF", COULD_NOT_COLLECT)
    redactor = reading.redactor
    reading.out.put("env", "variables", redactor.redact_env(sorted(variables.items())))
    reading.out.note_unknown("env", "variables.*", PRINTED_VARIABLES)
    reading.out.put("env", "prefixes", [])
    reading.out.put("env", "names", sorted(names))
    redacted = sorted(k for k, v in variables.items() if redactor.redact_value(k, v) != v)
    reading.out.put("env", "redacted", redacted)


def _allocator(reading: Reading, text: str) -> dict[str, str]:
    """`{'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}` as printed by collect_env."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        reading.out.note_unknown("env", "variables", f"unreadable allocator config: {text[:80]!r}")
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}
