"""Another OS family is another C runtime and other builds of every compiled package.

A step within one OS (a point release, a kernel, a newer glibc) rarely changes arithmetic.
Moving between Linux, macOS and Windows changes more at once, and each of these has changed
results users compared:

- the C runtime: libm's transcendental functions, the order `qsort` leaves equal keys in (it is
  not a stable sort), the directory order `os.listdir` returns;
- the C `long` is 32 bits on 64-bit Windows and 64 bits elsewhere, and numpy before 2.0 takes
  its default integer from it, so `astype(int)` overflows on Windows only (numpy/numpy#9464,
  numpy/numpy#17640);
- the wheels themselves: numpy 2.x wheels for macOS 14+ link Apple's Accelerate where the Linux
  and Windows wheels link OpenBLAS (numpy/numpy#24961), so BLAS sums in another order.

These join the OS change's finding as the ways it acts (`env.os-runtime`), so an OS family
change ranks as the change of libraries it is, and names what the records show of it.
"""

from __future__ import annotations

from typing import Any

from envsnap.diff.derived import Hit, get, way_of
from envsnap.diff.versions import parse

Doc = dict[str, Any]
OS_CAUSE = "env.os"
RUNTIME = "env.os-runtime"
_FAMILY_PATH = "system.os"
_NUMPY_PATH = "packages.installed.numpy.version"
_FAMILIES = frozenset({"Linux", "Darwin", "Windows"})


def os_family(a: Doc, b: Doc) -> list[Hit]:
    """With the OS family changed, the ways it acts, each joining the OS finding."""
    families = (_family(a), _family(b))
    if None in families or families[0] == families[1]:
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
    sides = [
        (_numpy(doc), get(doc, _FAMILY_PATH), get(doc, "system.cpu.architecture")) for doc in (a, b)
    ]
    versions = (get(a, _NUMPY_PATH), get(b, _NUMPY_PATH))
    ways: list[Hit] = []
    if any(os_name == "Windows" and major is not None and major < 2 for major, os_name, _ in sides):
        ways.append(
            Hit(
                rule=RUNTIME,
                path=_NUMPY_PATH,
                a=versions[0],
                b=versions[1],
                title="numpy's default integer is 32-bit on Windows before numpy 2.0",
                inferred="numpy's default integer is the C long, 32-bit on 64-bit Windows",
            )
        )
    blas = [_wheel_blas(major, os_name, machine) for major, os_name, machine in sides]
    if None not in blas and blas[0] != blas[1]:
        ways.append(
            Hit(
                rule=RUNTIME,
                path=_NUMPY_PATH,
                a=versions[0],
                b=versions[1],
                title=f"numpy's BLAS {blas[0]} → {blas[1]}",
                inferred="numpy 2.x wheels link Accelerate on macOS arm64, OpenBLAS elsewhere",
            )
        )
    return ways


def _numpy(doc: Doc) -> int | None:
    """numpy's major version where it came from PyPI (a conda build links its own BLAS)."""
    if get(doc, "packages.installed.numpy.installer") == "conda" or get(
        doc, "packages.conda.numpy"
    ):
        return None
    version = parse(get(doc, _NUMPY_PATH))
    return version.major if version is not None else None


def _wheel_blas(major: int | None, os_name: Any, machine: Any) -> str | None:
    """The BLAS numpy's PyPI wheel links: Accelerate for 2.x on macOS arm64, else OpenBLAS."""
    if major is None or not (isinstance(os_name, str) and os_name in _FAMILIES):
        return None
    return "Accelerate" if major >= 2 and os_name == "Darwin" and machine == "arm64" else "OpenBLAS"
