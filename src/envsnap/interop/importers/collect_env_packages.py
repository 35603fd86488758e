"""The "Versions of relevant libraries" block of a collect_env report.

Three line shapes occur: `[pip3] torch==2.1.0` (pip freeze, since 2019), `[pip] numpy (1.15.4)`
(the legacy `pip list` format of the 2018 script) and `[conda] pytorch 1.6.0
py3.7_cuda10.1.243_cudnn7.6.3_0 pytorch` (`conda list`). Conda lines whose build is `pypi_0`
are pip installs that conda lists; they are pip packages, not conda records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from envsnap.interop.importers.collect_env_reading import Reading

_FREEZE = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<version>\S+)")
_LEGACY = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*\((?P<version>[^,)\s]+)[^)]*\)")
_NOTHING = ("Could not collect", "No relevant packages")
PARTIAL_LISTING = (
    "collect_env report lists only packages matching its name patterns "
    "(torch, numpy, nvidia-*, mkl, triton...)"
)


@dataclass
class Listing:
    """Packages a report lists: pip by normalized name, conda records by name."""

    pip: dict[str, tuple[str, str]] = field(default_factory=dict)
    conda: dict[str, tuple[str, str]] = field(default_factory=dict)

    def conda_build(self, name: str) -> str | None:
        record = self.conda.get(name)
        return record[1] if record else None


def _canonical(name: str) -> str:
    from envsnap.capturing.collectors.packages import canonical_name

    return canonical_name(name)


def _pip_line(rest: str) -> tuple[str, str] | None:
    match = _FREEZE.match(rest) or _LEGACY.match(rest)
    return (match["name"], match["version"]) if match else None


def parse_listing(lines: list[tuple[str, str]]) -> Listing:
    """The pip and conda packages of `[manager] rest` lines."""
    listing = Listing()
    for manager, rest in lines:
        if not rest or rest.startswith(_NOTHING):
            continue
        if manager != "conda":
            found = _pip_line(rest)
            if found:
                listing.pip[_canonical(found[0])] = found
            continue
        parts = rest.split()
        if len(parts) < 2:
            continue
        build = parts[2] if len(parts) > 2 else ""
        if build.startswith("pypi_"):
            listing.pip.setdefault(_canonical(parts[0]), (parts[0], parts[1]))
        else:
            listing.conda[parts[0]] = (parts[1], build)
    return listing


def map_packages(reading: Reading, listing: Listing) -> None:
    """The packages section: what the report lists, in the shape a capture writes."""
    if not reading.report.packages:
        return
    installed: dict[str, dict[str, Any]] = {}
    for key, (name, version) in sorted(listing.pip.items()):
        # The listing says neither which tool installed a package nor from where.
        installed[key] = {"name": name, "version": version, "installer": None, "source": None}
        reading.out.note_unknown("packages", f"installed.{key}.installer")
        reading.out.note_unknown("packages", f"installed.{key}.source")
    reading.out.put("packages", "installed", installed)
    reading.out.note_unknown("packages", "installed.*", PARTIAL_LISTING)
    reading.out.put_unknown("packages", "project_root")
    reading.out.note_unknown("packages", "lock_files")
    if listing.conda:
        conda = {
            name: {"version": version, "build": build}
            for name, (version, build) in sorted(listing.conda.items())
        }
        reading.out.put("packages", "conda", conda)
