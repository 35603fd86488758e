"""Version comparison with `packaging`: what kind of step separates two version strings.

A local build tag (`+cu118` vs `+cu121` vs `+cpu`) is its own kind of step: the same release
built against another CUDA stack vendors other cuBLAS/cuDNN/NCCL binaries. A local part that
names a source commit (`1.8.0a0+1606899`, `+git1234abc`) is not a build tag: two such versions
differ by `commit` (other source), not by `local` (another CUDA build).
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from packaging.version import InvalidVersion, Version

from envsnap.manifest.build_tags import commit_of, is_build_tag

VersionStep = Literal[
    "same", "major", "minor", "patch", "pre", "post", "dev", "local", "commit", "invalid"
]


def parse(text: object) -> Version | None:
    """A `Version`, or None when the text is not a PEP 440 version."""
    if not isinstance(text, str):
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


class _Plain(NamedTuple):
    """The parts of a version `step` compares, for the plain forms `_PLAIN` reads."""

    epoch: int
    release: tuple[int, ...]
    pre: None
    post: int | None
    dev: int | None
    local: None


# Release numbers with an optional `.postN` and `.devN`, spelled as packaging normalises
# them: these read the same as `Version` would, without its general parser (most installed
# versions are of this form, and a diff of 200k packages compares every changed one).
_PLAIN = re.compile(r"(\d+(?:\.\d+)*)(?:\.post(\d+))?(?:\.dev(\d+))?")


def _parts(text: object) -> Version | _Plain | None:
    if isinstance(text, str):
        match = _PLAIN.fullmatch(text)
        if match is not None:
            release, post, dev = match.groups()
            return _Plain(
                0,
                tuple(map(int, release.split("."))),
                None,
                None if post is None else int(post),
                None if dev is None else int(dev),
                None,
            )
    return parse(text)


def step(a: object, b: object) -> VersionStep:
    """The most significant component in which `a` and `b` differ."""
    va, vb = _parts(a), _parts(b)
    if va is None or vb is None:
        return "same" if a == b else "invalid"
    ra = (*va.release, 0, 0, 0)[:3] + va.release[3:]
    rb = (*vb.release, 0, 0, 0)[:3] + vb.release[3:]
    if va.epoch != vb.epoch or ra[0] != rb[0]:
        return "major"
    if ra[1] != rb[1]:
        return "minor"
    if ra != rb:
        return "patch"
    if va.pre != vb.pre:
        return "pre"
    if va.post != vb.post:
        return "post"
    if va.dev != vb.dev:
        return "dev"
    if va.local != vb.local:
        if commit_of(a) or commit_of(b):
            return "commit"
        return "local"
    return "same"


def local_tag(text: object) -> str | None:
    """The local build tag (`cu121`, `cpu`, `rocm6.0`) or None: a commit or an NGC release in
    the local part is not one."""
    version = parse(text)
    local = version.local if version is not None else None
    return local if is_build_tag(local) else None


def crosses(a: object, b: object, boundary: str) -> bool:
    """True when exactly one of `a`, `b` is at or above `boundary` (local tags ignored)."""
    va, vb = parse(a), parse(b)
    if va is None or vb is None:
        return False
    # ".dev0" is the lowest version of a release: its rcs and nightlies count as that release.
    edge = Version(boundary + ".dev0")
    return (Version(va.public) >= edge) != (Version(vb.public) >= edge)


def within(text: object, low: str | None, high: str | None) -> bool:
    """True when low <= version < high (public part; either bound may be open)."""
    version = parse(text)
    if version is None:
        return False
    public = Version(version.public)
    if low is not None and public < Version(low):
        return False
    return not (high is not None and public >= Version(high))


# Effect size of a version step, for ordering otherwise equal findings.
STEP_SIZE: dict[str, int] = {
    "major": 3,
    "minor": 2,
    "patch": 1,
    "local": 1,
    "commit": 1,
    "pre": 1,
    "post": 1,
    "dev": 1,
}
