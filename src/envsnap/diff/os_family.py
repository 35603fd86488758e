"""Another OS family is another C runtime and other builds of every compiled package.

A step within one OS (a point release, a kernel, a newer glibc) rarely changes arithmetic.
Moving between Linux, macOS and Windows changes more at once, and each of these has changed
results users compared:

- the C runtime: libm's transcendental functions, the order `qsort` leaves equal keys in (it is
  not a stable sort), the directory order `os.listdir` returns;
- the C `long` is 32 bits on 64-bit Windows and 64 bits elsewhere, and numpy before 2.0 takes
  its default integer from it, so `astype(int)` overflows on Windows only (numpy/numpy#9464,
  numpy/numpy#17640);
- the wheels themselves: numpy 2.x wheels for macOS 14 and later link Apple's Accelerate, its
  other wheels (older macOS, Linux, Windows) link OpenBLAS, so BLAS sums in another order
  (numpy/numpy#24961; the 2.0.0 wheel builds, numpy/numpy GitHub Actions run 9045573608,
  name their macOS artifacts `-accelerate` and `-openblas`).

These join the OS change's finding as the ways it acts (`env.os-runtime`), so an OS family
change ranks as the change of libraries it is, and names what the records show of it.
"""

from __future__ import annotations

import re
from typing import Any

from envsnap.diff.derived import Hit, get, way_of
from envsnap.diff.versions import parse

Doc = dict[str, Any]
OS_CAUSE = "env.os"
RUNTIME = "env.os-runtime"
_FAMILY_PATH = "system.os"
_NUMPY_PATH = "packages.installed.numpy.version"
_FAMILIES = frozenset({"Linux", "Darwin", "Windows"})


def os_families(a: Doc, b: Doc) -> tuple[str, str] | None:
    """The OS family (Linux, Darwin, Windows) of each side; None when a side states none."""
    family_a, family_b = _family(a), _family(b)
    return None if family_a is None or family_b is None else (family_a, family_b)


def os_family(a: Doc, b: Doc) -> list[Hit]:
    """With the OS family changed, the ways it acts, each joining the OS finding."""
    families = os_families(a, b)
    if families is None or families[0] == families[1]:
        return []
    runtime = Hit(
        rule=RUNTIME,
        path=_FAMILY_PATH,
        a=families[0],
        b=families[1],
        title="another C runtime (libm, qsort order, file listing order)",
    )
    return [way_of(hit, OS_CAUSE) for hit in (runtime, *_numpy_ways(a, b))]


def _family(doc: Doc) -> str | None:
    name = get(doc, _FAMILY_PATH)
    return name if isinstance(name, str) and name in _FAMILIES else None


def _numpy_ways(a: Doc, b: Doc) -> list[Hit]:
    """What the records' numpy versions say the family change does to numpy (inferred)."""
    ways: list[tuple[str, str]] = []
    if any(_family(doc) == "Windows" and _major(doc) in _BEFORE_2 for doc in (a, b)):
        ways.append(
            (
                "numpy's default integer is 32-bit on Windows before numpy 2.0",
                "numpy's default integer is the C long, 32-bit on 64-bit Windows",
            )
        )
    blas = [_wheel_blas(doc) for doc in (a, b)]
    if None not in blas and blas[0] != blas[1]:
        ways.append(
            (
                f"numpy's BLAS {blas[0]} → {blas[1]}",
                "numpy 2.x wheels for macOS 14+ link Accelerate; its other wheels link OpenBLAS",
            )
        )
    versions = (get(a, _NUMPY_PATH), get(b, _NUMPY_PATH))
    return [
        Hit(RUNTIME, _NUMPY_PATH, *versions, title=title, inferred=inferred)
        for title, inferred in ways
    ]


_BEFORE_2 = frozenset({0, 1})
_MACOS = re.compile(r"macOS (\d+)")


def _major(doc: Doc) -> int | None:
    """numpy's major version, however it was installed."""
    version = parse(get(doc, _NUMPY_PATH))
    return version.major if version is not None else None


def _wheel_blas(doc: Doc) -> str | None:
    """The BLAS numpy's PyPI wheel for this side links: Accelerate for 2.x on macOS 14 or
    later, else OpenBLAS; None where the record cannot say (a conda build links its own BLAS;
    a macOS release not recorded)."""
    family, major = _family(doc), _major(doc)
    if family is None or major is None or _from_conda(doc):
        return None
    if family != "Darwin" or major < 2:
        return "OpenBLAS"
    release = get(doc, "system.os_release")
    found = _MACOS.match(release) if isinstance(release, str) else None
    if found is None:
        return None
    return "Accelerate" if int(found[1]) >= 14 else "OpenBLAS"


def _from_conda(doc: Doc) -> bool:
    return get(doc, "packages.installed.numpy.installer") == "conda" or bool(
        get(doc, "packages.conda.numpy")
    )
