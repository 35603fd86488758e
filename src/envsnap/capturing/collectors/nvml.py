"""Loading NVML and calling it safely, for the `gpu` collector (and the torch collector's
device lookup).

The driver's NVML library is looked for on the loader's search path, then loaded once in a child
process with a deadline before pynvml is imported: a host without it costs no import and no
process, and one whose loading blocks costs the collector its deadline, not the capture. Every
NVML call that fails becomes an `unknown` entry for its own field.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envsnap.capturing.collectors.base import CollectorUnavailable
from envsnap.files.reader import read_if_regular

MISSING_SUPPORT_MESSAGE = "nvidia-ml-py is not installed (pip install 'envsnap-ml[nvidia]')"

# NVML return codes that mean "no NVIDIA driver stack here": expected absence, not a failure.
_ABSENT_CODES = {
    9: "the NVIDIA driver is not loaded",  # NVML_ERROR_DRIVER_NOT_LOADED
    12: "the NVML library (libnvidia-ml) was not found",  # NVML_ERROR_LIBRARY_NOT_FOUND
}


def error_text(nvml: Any, exc: BaseException) -> str:
    """'NVML error 3 (Not Supported)'. Never calls back into a library that may be absent."""
    code = getattr(exc, "value", None)
    names = getattr(getattr(nvml, "NVMLError", None), "_errcode_to_string", {})
    name = names.get(code) if isinstance(names, dict) else None
    return f"NVML error {code} ({name or type(exc).__name__})"


@dataclass
class NvmlReader:
    """Calls NVML functions by name, turning a failure into an `unknown` entry for one field."""

    nvml: Any
    unknown: dict[str, str] = field(default_factory=dict)

    def call(self, key: str, function: str, *args: Any) -> Any:
        fn: Callable[..., Any] | None = getattr(self.nvml, function, None)
        if fn is None:
            self.unknown[key] = f"{function} is not in this nvidia-ml-py"
            return None
        try:
            return fn(*args)
        except self.nvml.NVMLError as exc:
            self.unknown[key] = f"{function}: {error_text(self.nvml, exc)}"
            return None


@contextmanager
def nvml_session(nvml: Any) -> Iterator[None]:
    """nvmlInit ... nvmlShutdown. A missing library or driver becomes `CollectorUnavailable`."""
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        code = getattr(exc, "value", None)
        if code in _ABSENT_CODES:
            raise CollectorUnavailable(f"{_ABSENT_CODES[code]} ({error_text(nvml, exc)})") from None
        raise RuntimeError(f"nvmlInit failed: {error_text(nvml, exc)}") from None
    try:
        yield
    finally:
        # Shutting down is best effort; the values are already read.
        with suppress(nvml.NVMLError):
            nvml.nvmlShutdown()


# The driver's NVML library, and how long loading it may take in the probe below.
NVML_LIBRARY = "libnvidia-ml.so.1"
NVML_PROBE_TIMEOUT_S = 5.0
_PROBE = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"


def probe_library(name: str, timeout_s: float) -> str | None:
    """Why `name` cannot be loaded, or None when a fresh process loads it.

    The load runs in a child process with a hard deadline: dlopen holds the GIL, so a library
    whose loading blocks (a hung driver, a file on a stalled mount) would otherwise freeze
    every thread of the capture, and no time budget could rescue it.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _PROBE, name],
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{name} did not load within {timeout_s:.0f} s (its loading blocks)"
    except OSError as exc:
        return f"cannot start a process to load {name}: {exc.strerror or exc}"
    return None if done.returncode == 0 else f"{name} cannot be loaded"


# Where glibc's loader looks for a bare library name after LD_LIBRARY_PATH: its cache (built
# from /etc/ld.so.conf by ldconfig, multiarch directories included) and its trusted
# directories (ld.so(8)).
LOADER_CACHE = Path("/etc/ld.so.cache")
LOADER_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
_CACHE_MAX_BYTES = 16 * 1024 * 1024


def library_on_search_path(
    name: str,
    env: Mapping[str, str],
    cache: Path = LOADER_CACHE,
    trusted: Sequence[str] = LOADER_DIRS,
) -> bool:
    """Whether the dynamic loader could find `name` at all: a file in LD_LIBRARY_PATH or a
    trusted directory, or the name in the loader's cache. Cheap (no process, no dlopen), so
    a host without the library is told apart before anything is loaded. The executable's own
    RPATH is not read: a library reachable only through it counts as absent."""
    if "/" in name:
        return os.path.exists(name)
    directories = [d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d]
    if any(os.path.exists(os.path.join(d, name)) for d in (*directories, *trusted)):
        return True
    listed = read_if_regular(cache, _CACHE_MAX_BYTES)
    if listed is None:
        return True  # no cache to rule it out: let the probe decide
    # The cache's string table holds each name and each full path, NUL-terminated.
    entry = name.encode() + b"\0"
    return b"\0" + entry in listed or b"/" + entry in listed


def load_nvml() -> Any:
    """The pynvml module. On Linux the driver's NVML library is first looked for on the
    loader's search path, then loaded in a child process: a host without it is told apart
    before importing pynvml (a large module: tens of ms) or starting a process, and one whose
    loading blocks costs this collector its deadline, not the capture."""
    if sys.platform.startswith("linux") and "pynvml" not in sys.modules:
        reason = None
        if not library_on_search_path(NVML_LIBRARY, os.environ):
            reason = f"{NVML_LIBRARY} is not on the loader's search path"
        reason = reason or probe_library(NVML_LIBRARY, NVML_PROBE_TIMEOUT_S)
        if reason is not None and "did not load" in reason:
            raise RuntimeError(reason)
        if reason is not None:
            raise CollectorUnavailable(f"{_ABSENT_CODES[12]} ({reason})") from None
    try:
        import pynvml
    except ImportError:
        raise CollectorUnavailable(MISSING_SUPPORT_MESSAGE) from None
    return pynvml
