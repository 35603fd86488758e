"""Read the `platform.platform()` string that collect_env and W&B both record."""

from __future__ import annotations

import re

MACHINES = r"x86_64|AMD64|aarch64|arm64|ppc64le|s390x|i686|armv7l|riscv64"
_LINUX = re.compile(rf"^Linux-(?P<kernel>.+?)-(?P<machine>{MACHINES})(?:-with-(?P<libc>.+))?$")
_MAC = re.compile(rf"^(?:macOS|Darwin)-(?P<release>[\d.]+)-(?P<machine>{MACHINES})")
_WINDOWS = re.compile(r"^Windows-(?P<release>[^-]+)-(?P<kernel>[\d.]+)")
_LIBC = re.compile(r"^(?P<name>glibc|musl)-?(?P<version>\d[\w.]*)$")


def libc_from(text: str) -> str | None:
    """'glibc-2.35' or 'glibc2.35' -> 'glibc 2.35' (the form the system collector writes)."""
    match = _LIBC.match(text.strip())
    return f"{match['name']} {match['version']}" if match else None


def parse_platform(text: str) -> dict[str, str | None]:
    """OS, kernel, machine and libc that a platform string states; absent parts are None.

    'Linux-5.15.0-91-generic-x86_64-with-glibc2.35' states all four; a macOS string states the
    macOS version (not the kernel) and the machine; a Windows string states the build number.
    """
    facts: dict[str, str | None] = {"os": None, "kernel": None, "machine": None, "libc": None}
    text = text.strip()
    if linux := _LINUX.match(text):
        facts.update(os="Linux", kernel=linux["kernel"], machine=linux["machine"])
        facts["libc"] = libc_from(linux["libc"]) if linux["libc"] else None
    elif mac := _MAC.match(text):
        facts.update(os="Darwin", machine=mac["machine"])
    elif windows := _WINDOWS.match(text):
        facts.update(os="Windows", kernel=windows["kernel"])
    return facts
