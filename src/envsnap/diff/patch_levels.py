"""A patch step within one release series of the platform does not change results.

Two real machines differ in the kernel's build within one upstream release (5.15.0-91 vs
5.15.0-97), the OS point release (Ubuntu 22.04.3 vs 22.04.4) and the NVIDIA driver's patch
within one branch (535.104.05 vs 535.129.03) while computing the same bits (the noise reference lists all three as harmless): the kernel does
no arithmetic for the job, a point release keeps the release's glibc series (recorded apart, as
`system.libc`), and no primary source has the driver alone change GEMM or convolution numerics
(numerics.md D2), while what does depend on it (NVLS, PTX JIT) follows its branch. Such a step is
info for close and conclusion; a point release or driver patch stays low for bitwise, where a
library update it brings may move the last bits. A step across series keeps its rule's
severity. macOS and Windows releases are left alone: a macOS minor release updates Accelerate,
which numpy and torch can call for BLAS.
"""

from __future__ import annotations

import re

from envsnap.diff.derived import Hit
from envsnap.diff.report import Severity

Grade = tuple[tuple[Severity, Severity, Severity], str]
_KERNEL_INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")
_PATCH: tuple[Severity, Severity, Severity] = ("low", "info", "info")
# "5.15.0-91-generic": the upstream release, then the distribution's build of it.
_KERNEL = re.compile(r"^(?P<upstream>\d+\.\d+(?:\.\d+)?)[-+~_](?P<build>\S+)$")
# "Ubuntu 22.04.3 LTS", "Debian GNU/Linux 11 (bullseye)", "Rocky Linux 8.9 (Green Obsidian)".
_RELEASE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z /_-]*?)\s+(?P<version>\d+(?:\.\d+)*)\b")
# Version components that name the series: Ubuntu's YY.MM, the major release elsewhere.
_SERIES_WIDTH = {"ubuntu": 2}
_UNSCOPED = ("macos", "mac os", "darwin", "windows", "microsoft")
# "535.104.05": the branch is the first component; NVML's "12.535.104.05" puts its own major
# release before the driver's.
_DRIVER = re.compile(r"^(?P<branch>\d+)(?:\.\d+)*$")
_NVML = re.compile(r"^(?P<branch>\d+\.\d+)(?:\.\d+)*$")


def within_series(hit: Hit) -> Grade | None:
    """(severity per target, qualifier) for a platform patch step within one series, else
    None."""
    if not (isinstance(hit.a, str) and isinstance(hit.b, str)) or hit.a == hit.b:
        return None
    if hit.rule == "env.os" and hit.path == "system.kernel":
        return _kernel(hit.a, hit.b)
    if hit.rule == "env.os" and hit.path == "system.os_release":
        return _os_release(hit.a, hit.b)
    if hit.rule == "stack.driver" and hit.path == "gpu.driver_version":
        return _driver(_DRIVER, hit.a, hit.b)
    if hit.rule == "stack.driver" and hit.path == "gpu.nvml_version":
        return _driver(_NVML, hit.a, hit.b)
    return None


def _kernel(a: str, b: str) -> Grade | None:
    left, right = _KERNEL.match(a.strip()), _KERNEL.match(b.strip())
    if left and right and left["upstream"] == right["upstream"]:
        return _KERNEL_INFO, f"another build of kernel {left['upstream']}"
    return None


def _series(text: str) -> tuple[str, tuple[str, ...]] | None:
    match = _RELEASE.match(text.strip())
    if match is None or match["name"].lower().startswith(_UNSCOPED):
        return None
    name = match["name"].strip().lower()
    width = _SERIES_WIDTH.get(name.split()[0], 1)
    parts = tuple(match["version"].split("."))
    return (name, parts[:width]) if len(parts) >= width else None


def _os_release(a: str, b: str) -> Grade | None:
    left, right = _series(a), _series(b)
    if left is not None and left == right:
        version = ".".join(left[1])
        return _PATCH, f"a point release within {version}"
    return None


def _driver(pattern: re.Pattern[str], a: str, b: str) -> Grade | None:
    left, right = pattern.match(a.strip()), pattern.match(b.strip())
    if left and right and left["branch"] == right["branch"]:
        branch = left["branch"].rsplit(".", 1)[-1]
        return _PATCH, f"a patch within driver branch {branch}"
    return None
