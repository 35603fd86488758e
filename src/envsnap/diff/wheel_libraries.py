"""The cuDNN, NCCL and cuBLAS each official torch wheel build ships, by release and CUDA tag.

A torch wheel from PyTorch's release builds carries its CUDA libraries: before 1.13 (and for the
CUDA variants built without PyPI dependencies after it) cuDNN is copied into torch/lib from the
build image; since 1.13 the wheel pins `nvidia-cudnn-cuXX`, `nvidia-cublas-cuXX` (and, from 2.0,
`nvidia-nccl-cuXX`) and loads them through its RPATH (pytorch/builder#1183). So where a record
states the wheel but not the libraries (a collect_env report), the libraries follow from it.

Sources, one per row:

- PYPI: the `Requires-Dist` pins of the release's Linux x86_64 wheel on PyPI
  (https://pypi.org/project/torch/<version>/), the CUDA variant PyPI carries for that release;
- BUILDER: the cuDNN the build image installed, in pytorch/builder `common/install_cuda.sh` on
  the release branch (or at the commit before the release for 1.7), which build_cuda.sh copies
  into torch/lib (bundled builds) and which the wheel's pin matches (PyPI-dependency builds);
- pytorch/builder#2060 (review by NVIDIA's ptrblck): 2.7.0's cu118 and cu128 builds.

A value no source gives is None (unknown), never guessed: NCCL of the bundled builds is
compiled from torch's third_party/nccl submodule, which none of these sources state.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envsnap.diff.derived import Hit
from envsnap.manifest.build_tags import major_minor, parse_torch_version

PYPI = "https://pypi.org/project/torch/{release}/ (Requires-Dist of the Linux x86_64 wheel)"
BUILDER = "pytorch/builder {ref}:common/install_cuda.sh (cuDNN of the build image, {how})"
_BUNDLED = "copied into torch/lib"
_PINNED = "which the wheel's nvidia-cudnn pin matches"
PR_2060 = "pytorch/builder#2060 (CUDA_UPGRADE_GUIDE: torch 2.7.0 cuDNN per CUDA variant)"


@dataclass(frozen=True)
class WheelBuild:
    """The libraries one CUDA variant of some torch releases ships; None: not sourced."""

    releases: str  # PEP 440 specifier on the public version
    tag: str
    cudnn: str | None
    nccl: str | None
    cublas: str | None
    source: str
    pypi: bool = False  # PyPI's wheel of these releases is this variant (no local tag)


def _builder(ref: str, bundled: bool = True) -> str:
    return BUILDER.format(ref=ref, how=_BUNDLED if bundled else _PINNED)


def _pypi(release: str) -> str:
    return PYPI.format(release=release)


_R17_0 = _builder("a865203b (before 1.7.0)")
_R17_1 = _builder("671b77d0 (before 1.7.1, #571)")

BUILDS: tuple[WheelBuild, ...] = (
    # 1.7: cuDNN 7.6.3 for CUDA 9.2/10.1, 7.6.5 for 10.2, 8.0.4 then 8.0.5 for 11.0.
    WheelBuild("==1.7.0", "cu92", "7.6.3.30", None, None, _R17_0),
    WheelBuild("==1.7.0", "cu101", "7.6.3.30", None, None, _R17_0),
    WheelBuild("==1.7.0", "cu102", "7.6.5.32", None, None, _R17_0, pypi=True),
    WheelBuild("==1.7.0", "cu110", "8.0.4.30", None, None, _R17_0),
    WheelBuild("==1.7.1", "cu92", "7.6.3.30", None, None, _R17_1),
    WheelBuild("==1.7.1", "cu101", "7.6.3.30", None, None, _R17_1),
    WheelBuild("==1.7.1", "cu102", "7.6.5.32", None, None, _R17_1, pypi=True),
    WheelBuild("==1.7.1", "cu110", "8.0.5.39", None, None, _R17_1),
    WheelBuild(">=1.8,<1.9", "cu101", "7.6.3.30", None, None, _builder("lts/release/1.8")),
    WheelBuild(
        ">=1.8,<1.9", "cu102", "7.6.5.32", None, None, _builder("lts/release/1.8"), pypi=True
    ),
    WheelBuild(">=1.8,<1.9", "cu111", "8.0.5.39", None, None, _builder("lts/release/1.8")),
    WheelBuild(">=1.9,<1.10", "cu102", "7.6.5.32", None, None, _builder("release/1.9"), pypi=True),
    WheelBuild(">=1.9,<1.10", "cu111", "8.0.5.39", None, None, _builder("release/1.9")),
    WheelBuild(
        ">=1.10,<1.11", "cu102", "7.6.5.32", None, None, _builder("release/1.10"), pypi=True
    ),
    WheelBuild(">=1.10,<1.11", "cu111", "8.0.5.39", None, None, _builder("release/1.10")),
    WheelBuild(">=1.10,<1.11", "cu113", "8.2.0.53", None, None, _builder("release/1.10")),
    WheelBuild(
        ">=1.11,<1.12", "cu102", "7.6.5.32", None, None, _builder("release/1.11"), pypi=True
    ),
    WheelBuild(">=1.11,<1.12", "cu113", "8.2.0.53", None, None, _builder("release/1.11")),
    WheelBuild(">=1.11,<1.12", "cu115", "8.3.2.44", None, None, _builder("release/1.11")),
    WheelBuild(
        ">=1.12,<1.13", "cu102", "7.6.5.32", None, None, _builder("release/1.12"), pypi=True
    ),
    WheelBuild(">=1.12,<1.13", "cu113", "8.3.2.44", None, None, _builder("release/1.12")),
    WheelBuild(">=1.12,<1.13", "cu116", "8.3.2.44", None, None, _builder("release/1.12")),
    WheelBuild(">=1.13,<1.14", "cu116", "8.3.2.44", None, None, _builder("release/1.13")),
    WheelBuild(">=1.13,<1.14", "cu117", "8.5.0.96", None, "11.10.3.66", _pypi("1.13.1"), True),
    WheelBuild(">=2.0,<2.1", "cu117", "8.5.0.96", "2.14.3", "11.10.3.66", _pypi("2.0.1"), True),
    WheelBuild(">=2.0,<2.1", "cu118", "8.7.0.84", None, None, _builder("release/2.0")),
    WheelBuild(">=2.1,<2.2", "cu118", "8.7.0.84", None, None, _builder("release/2.1", False)),
    WheelBuild(">=2.1,<2.2", "cu121", "8.9.2.26", "2.18.1", "12.1.3.1", _pypi("2.1.2"), True),
    WheelBuild(">=2.2,<2.3", "cu118", "8.7.0.84", None, None, _builder("release/2.2", False)),
    WheelBuild(">=2.2,<2.3", "cu121", "8.9.2.26", "2.19.3", "12.1.3.1", _pypi("2.2.2"), True),
    WheelBuild(">=2.3,<2.4", "cu118", "8.7.0.84", None, None, _builder("release/2.3", False)),
    WheelBuild(">=2.3,<2.4", "cu121", "8.9.2.26", "2.20.5", "12.1.3.1", _pypi("2.3.1"), True),
    WheelBuild(">=2.4,<2.5", "cu118", "9.1.0.70", None, None, _builder("release/2.4", False)),
    WheelBuild(">=2.4,<2.5", "cu121", "9.1.0.70", "2.20.5", "12.1.3.1", _pypi("2.4.1"), True),
    WheelBuild(">=2.4,<2.5", "cu124", "9.1.0.70", None, None, _builder("release/2.4", False)),
    WheelBuild(">=2.5,<2.6", "cu124", "9.1.0.70", "2.21.5", "12.4.5.8", _pypi("2.5.1"), True),
    WheelBuild(">=2.6,<2.7", "cu124", "9.1.0.70", "2.21.5", "12.4.5.8", _pypi("2.6.0"), True),
    WheelBuild(">=2.7,<2.8", "cu118", "9.1.0.70", None, None, PR_2060),
    WheelBuild(">=2.7,<2.8", "cu126", "9.5.1.17", "2.26.2", "12.6.4.1", _pypi("2.7.1"), True),
    WheelBuild("==2.7.0", "cu128", "9.7.1.26", None, None, PR_2060),
    WheelBuild(">=2.8,<2.9", "cu128", "9.10.2.21", "2.27.3", "12.8.4.1", _pypi("2.8.0"), True),
    WheelBuild(">=2.9,<2.10", "cu128", "9.10.2.21", "2.27.5", "12.8.4.1", _pypi("2.9.1"), True),
    WheelBuild(">=2.10,<2.11", "cu128", "9.10.2.21", "2.27.5", "12.8.4.1", _pypi("2.10.0"), True),
    # From 2.11 the CUDA 13 wheel takes cuBLAS from the cuda-toolkit metapackage: not pinned.
    WheelBuild(">=2.11,<2.12", "cu130", "9.19.0.56", "2.28.9", None, _pypi("2.11.0"), True),
    WheelBuild(">=2.12,<2.13", "cu130", "9.20.0.48", "2.29.7", None, _pypi("2.12.1"), True),
    WheelBuild(">=2.13,<2.14", "cu130", "9.20.0.48", "2.29.7", None, _pypi("2.13.0"), True),
    WheelBuild(">=2.14,<2.15", "cu130", "9.24.0.43", "2.30.7", None, _pypi("2.14.1"), True),
)
"""Variants not listed (2.5-2.6 cu118/cu121, 2.6 cu126, 2.7.1 cu128, 2.8+ cu126/cu129/cu130
before 2.11...) are unknown: none of the sources above states them."""


def wheel_build(version: object, cuda: object = None) -> WheelBuild | None:
    """The official wheel build a torch version names: by its CUDA tag (`2.1.0+cu118`), or for
    a version without one, PyPI's variant of that release when the CUDA torch was built with
    (`cuda`, e.g. '12.1') matches it. None for a source, NGC or nightly build, a CPU or ROCm
    build, or a build the table does not list."""
    parsed = parse_torch_version(version) if isinstance(version, str) else None
    if parsed is None or parsed.commit or parsed.ngc_release or parsed.nightly:
        return None
    try:
        public = Version(parsed.public)
    except InvalidVersion:  # pragma: no cover - parse_torch_version already checked it
        return None
    if public.is_prerelease or public.is_devrelease:
        return None
    if parsed.tag is not None:
        candidates = [b for b in BUILDS if b.tag == parsed.tag]
    else:
        cuda_tag = _cuda_tag(cuda)
        candidates = [b for b in BUILDS if b.pypi and (cuda_tag is None or b.tag == cuda_tag)]
        if cuda_tag is None:
            return None  # a plain version without its CUDA: PyPI, conda or a CPU wheel
    return next((b for b in candidates if public in SpecifierSet(b.releases)), None)


def _cuda_tag(cuda: object) -> str | None:
    mm = major_minor(cuda) if isinstance(cuda, str) else None
    return "cu" + mm.replace(".", "") if mm else None


def same_release(a: str, b: str) -> bool:
    """True when two library versions name the same release at the precision both state: a
    file name gives 8.9.2 where the wheel says 8.9.2.26."""
    try:
        ra, rb = Version(a).release, Version(b).release
    except InvalidVersion:
        return a == b
    shorter = min(len(ra), len(rb))
    return ra[:shorter] == rb[:shorter]


# --- the differ: libraries a side does not state, inferred from its wheel ------------------

# Library -> (rule, the path a finding names, where a record states the version, wheel stem).
LIBRARIES: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "cudnn": (
        "stack.cudnn",
        "cuda_stack.libraries.cudnn.version",
        ("torch.cudnn.version", "cuda_stack.libraries.cudnn.version"),
        "nvidia-cudnn",
    ),
    "nccl": (
        "stack.nccl",
        "cuda_stack.libraries.nccl.version",
        ("torch.nccl_version", "cuda_stack.libraries.nccl.version"),
        "nvidia-nccl",
    ),
    "cublas": (
        "stack.cublas",
        "cuda_stack.libraries.cublas.version",
        ("cuda_stack.libraries.cublas.version",),
        "nvidia-cublas",
    ),
}
_NAMES = {"cudnn": "cuDNN", "nccl": "NCCL", "cublas": "cuBLAS"}


def _get(doc: dict[str, Any], dotted: str) -> Any:
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _unknown(doc: dict[str, Any], path: str) -> bool:
    section, _, rest = path.partition(".")
    listed = _get(doc, f"{section}.unknown")
    return isinstance(listed, dict) and rest in listed


def version_text(value: object) -> str | None:
    """A library version as text; torch.backends.cudnn.version()'s integer (8902, 90100) as
    the release it encodes (8.9.2, 9.1.0)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        major = value // 10000 if value >= 90000 else value // 1000
        rest = value - major * (10000 if value >= 90000 else 1000)
        return f"{major}.{rest // 100}.{rest % 100}"
    return value if isinstance(value, str) and value else None


def stated_version(doc: dict[str, Any], library: str) -> str | None:
    """The version a record states for `library`: torch's own report, the copy it loads, or
    the nvidia-* wheel listed beside torch."""
    _, _, paths, wheel = LIBRARIES[library]
    for path in paths:
        if not _unknown(doc, path):
            found = version_text(_get(doc, path))
            if found is not None:
                return found
    installed = _get(doc, "packages.installed")
    if isinstance(installed, dict):
        for name, entry in installed.items():
            named = str(name).startswith(f"{wheel}-cu") or name == wheel
            if named and isinstance(entry, dict):
                return version_text(entry.get("version"))
    return None


def _wheel_of(doc: dict[str, Any]) -> tuple[str, WheelBuild] | None:
    """(torch version, the official wheel build it is) for a side whose torch is one."""
    conda = _get(doc, "packages.conda")
    if isinstance(conda, dict) and "pytorch" in conda:
        return None  # a conda build loads the environment's libraries
    version = _get(doc, "cuda_stack.torch_version") or _get(doc, "torch.version")
    installed = _get(doc, "packages.installed.torch.version")
    version = installed if isinstance(installed, str) else version
    if not isinstance(version, str):
        return None
    cuda = _get(doc, "cuda_stack.torch_cuda") or _get(doc, "torch.cuda")
    build = wheel_build(version, cuda)
    return (version, build) if build is not None else None


def side_version(doc: dict[str, Any], library: str) -> tuple[str | None, str | None]:
    """(version, what it was inferred from; None when stated)."""
    stated = stated_version(doc, library)
    if stated is not None:
        return stated, None
    wheel = _wheel_of(doc)
    if wheel is None:
        return None, None
    version, build = wheel
    value = getattr(build, library)
    if value is None:
        return None, None
    return (
        value,
        f"torch {version} ({build.tag} wheel) ships {_NAMES[library]} {value}: {build.source}",
    )


def bundled_libraries(a: dict[str, Any], b: dict[str, Any]) -> Iterator[Hit]:
    """cuDNN, NCCL and cuBLAS a side does not state, inferred from its torch wheel build and
    compared with the other side's (stated or inferred). Both stated: the recorded change is
    the finding already."""
    for library, (rule, path, _, _) in LIBRARIES.items():
        (va, why_a), (vb, why_b) = side_version(a, library), side_version(b, library)
        if va is None or vb is None or (why_a is None and why_b is None):
            continue
        if same_release(va, vb):
            continue
        notes = [f"{side}: {why}" for side, why in (("A", why_a), ("B", why_b)) if why]
        yield Hit(
            rule,
            path,
            va,
            vb,
            title=f"{_NAMES[library]} {va} → {vb} (the {_NAMES[library]} the torch wheel "
            "ships, inferred from its build)",
            inferred="; ".join(notes),
        )
