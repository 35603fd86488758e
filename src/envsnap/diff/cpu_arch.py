"""The CPU architecture as one instruction set, whatever each OS calls it.

Python's `platform.machine()` names one instruction set differently per OS: 64-bit x86 is
`AMD64` on Windows and `x86_64` on Linux and macOS; 64-bit ARM is `arm64` on macOS and Windows
and `aarch64` on Linux (Python docs, `platform.machine`; the names come from each OS's own
`uname`/`PROCESSOR_ARCHITECTURE`). A Windows and a Linux run on one CPU are on the same
architecture, so such a spelling is info, not an architecture change.

Where the OS family changes too (a Linux x86-64 server and an Apple Silicon Mac), the user made
one move, to another platform: the architecture joins the OS finding as one of the ways that
move acts (`join_platform_move`), so the report gives one finding for the one cause instead of
two whose order only their rule ids would decide.
"""

from __future__ import annotations

from typing import Any

from envsnap.diff.derived import Hit, get, way_of
from envsnap.diff.os_family import OS_CAUSE, os_families

Doc = dict[str, Any]
ARCH_RULE = "hw.cpu-arch"
_ARCH_PATH = "system.cpu.architecture"
# One instruction set per entry, by every name `platform.machine()` gives it. Not `armv8l`:
# Linux says that of a 32-bit ARM process on an ARMv8 CPU, another instruction set than arm64.
_SPELLINGS: dict[str, str] = {
    "x86_64": "x86-64",
    "amd64": "x86-64",
    "x64": "x86-64",
    "em64t": "x86-64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "x86",
    "i486": "x86",
    "i586": "x86",
    "i686": "x86",
    "x86": "x86",
}


def instruction_set(machine: object) -> str | None:
    """The instruction set a machine name stands for ('AMD64' and 'x86_64' are both
    'x86-64'); an unknown name is itself, lower-cased; None for no name."""
    if not isinstance(machine, str) or not machine.strip():
        return None
    name = machine.strip().lower()
    return _SPELLINGS.get(name, name)


def same_instruction_set(a: object, b: object) -> bool:
    """True when two different machine names are one instruction set."""
    ours, theirs = instruction_set(a), instruction_set(b)
    return a != b and ours is not None and ours == theirs


def join_platform_move(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """With the OS family and the instruction set both changed, the architecture change as a
    way the OS finding acts."""
    families = os_families(a, b)
    if families is None or families[0] == families[1]:
        return hits
    sets = (instruction_set(get(a, _ARCH_PATH)), instruction_set(get(b, _ARCH_PATH)))
    if None in sets or sets[0] == sets[1]:
        return hits
    title = f"the CPU architecture with it, {sets[0]} → {sets[1]} (other builds of every kernel)"
    return [
        way_of(hit, OS_CAUSE, title=title)
        if hit.rule == ARCH_RULE and hit.path == _ARCH_PATH and hit.consequence_of is None
        else hit
        for hit in hits
    ]


def spelling_only(hit: Hit) -> bool:
    """True for an architecture change that only renames one instruction set."""
    return hit.rule == ARCH_RULE and same_instruction_set(hit.a, hit.b)
