"""`envsnap export requirements`: a pip requirements file that reinstalls a manifest's packages.

Every distribution the manifest records becomes one exact pin. What an index cannot give back
is said in a comment instead of being guessed: editable and local-directory installs (their
source is a checkout on the captured machine), VCS installs without a commit, URL installs whose
URL was not recorded. An archive installed from a URL keeps its hash in the URL fragment
(`#sha256=...`), which pip checks without switching every other line into hash-checking mode
(https://pip.pypa.io/en/stable/topics/secure-installs/#hash-checking-mode).

Every value comes from a file that may have been edited, so a name, version or URL that is not
well-formed goes into a comment, escaped, and never becomes a line pip would act on. An edited
file can also record one distribution twice (names equal once normalized, PEP 503): the same
pin twice is written once; two different ones cannot both be installed, and pip rejects such a
file, so the export refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from packaging.utils import canonicalize_name

from envsnap.errors import ManifestError
from envsnap.manifest.lean import LeanManifest, as_lean
from envsnap.manifest.model import Manifest
from envsnap.manifest.sections.packages import Package
from envsnap.render.escape import terminal_text

# PEP 508 distribution names (https://peps.python.org/pep-0508/#names).
_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
# Version strings as installed: PEP 440 characters, including a local tag (+cu121).
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")
# A URL pip can act on: a scheme and no whitespace, quotes or control characters.
_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\"<>\\]+", re.IGNORECASE)
_VCS = frozenset({"git", "hg", "svn", "bzr"})
# PyTorch publishes its CPU, CUDA and ROCm builds on its own index, one folder per local tag
# (https://pytorch.org/get-started/locally/); PyPI has only the default build.
_TORCH_INDEX = "https://download.pytorch.org/whl/"
_TORCH_FAMILY = frozenset({"torch", "torchvision", "torchaudio", "triton", "pytorch-triton"})
_TORCH_LOCAL_TAG = re.compile(r"\+(cpu|cu\d+|rocm[\d.]+|xpu)$")


# A distribution as a model, or as the plain entry a lean read keeps (the same fields).
AnyPackage = Package | Mapping[str, Any]


def _fields(package: AnyPackage) -> Mapping[str, Any]:
    return package.__dict__ if isinstance(package, Package) else package


def _well_formed(name: str, version: str | None) -> bool:
    return bool(_NAME.fullmatch(name) and _VERSION.fullmatch(version or ""))


def _direct_reference(package: Mapping[str, Any]) -> str | None:
    """`name @ url` for a VCS or archive install pip can fetch again; None when it cannot."""
    url = package.get("url") or ""
    if not _URL.fullmatch(url):
        return None
    if package.get("source") == "vcs":
        commit = package.get("commit")
        if package.get("vcs") not in _VCS or not commit or not commit.isalnum():
            return None
        return f"{package['name']} @ {package['vcs']}+{url}@{commit}"
    hashes = [
        f"{algorithm}={value}"
        for algorithm, value in sorted((package.get("hashes") or {}).items())
        if algorithm in ("sha256", "sha384", "sha512") and value.isalnum()
    ]
    fragment = f"#{hashes[-1]}" if hashes and "#" not in url else ""
    return f"{package['name']} @ {url}{fragment}"


def requirement_line(package: AnyPackage, checkout: str | None = None) -> str:
    """The line for one distribution: a pin, a direct reference, or a comment saying why not.

    `checkout` describes the captured repository, for an editable install of it."""
    fields = _fields(package)
    name, version, source = fields["name"], fields.get("version"), fields.get("source")
    if source in (None, "index") and _well_formed(name, version):
        note = "  # installed by conda" if fields.get("installer") == "conda" else ""
        return f"{name}=={version}{note}"
    shown = terminal_text(f"{name}=={version or '?'}")
    if not _well_formed(name, version):
        return f"# {shown}: name or version is not well-formed; left out"
    where = terminal_text(fields.get("url") or "an unrecorded place")
    if source == "editable":
        state = f" ({terminal_text(checkout)})" if checkout else ""
        return f"# {shown}: editable install from {where}{state}; install it with pip -e"
    if source == "local":
        return f"# {shown}: installed from the local directory {where}; not on an index"
    reference = _direct_reference(fields)
    if reference is None:
        return f"# {shown}: {source} install from {where} cannot be fetched again"
    return reference


PackageT = TypeVar("PackageT", Package, Mapping[str, Any])


def distinct_packages(packages: Iterable[PackageT]) -> list[PackageT]:
    """Each recorded distribution once, in the manifest's order.

    Raises ManifestError when two entries of one normalized name would be pinned differently."""
    kept: dict[str, tuple[PackageT, str]] = {}
    for package in packages:
        fields = _fields(package)
        name = canonicalize_name(fields["name"])
        line = requirement_line(fields if fields["name"] == name else {**fields, "name": name})
        if name not in kept:
            kept[name] = (package, line)
        elif kept[name][1] != line:
            first, second = _fields(kept[name][0]), fields
            raise ManifestError(
                f"packages.installed records {terminal_text(name)} twice "
                f"({_pin(first)} and {_pin(second)}): "
                "one environment holds one of them; remove the other entry"
            )
    return [package for package, _ in kept.values()]


def _pin(fields: Mapping[str, Any]) -> str:
    return terminal_text(f"{fields['name']}=={fields.get('version') or '?'}")


def _checkout(manifest: Manifest, package: Mapping[str, Any]) -> str | None:
    """'the captured repository at commit X' when an editable install is that repository."""
    code = manifest.code
    url = package.get("url")
    if code is None or not code.repo_root or url is None:
        return None
    if url.rstrip("/") != f"file://{code.repo_root}".rstrip("/"):
        return None
    state = ", with uncommitted changes" if code.dirty else ""
    return f"the captured repository at commit {code.commit}{state}"


def torch_index(packages: Iterable[AnyPackage]) -> str | None:
    """The PyTorch index folder the torch family's local tag (+cpu, +cu121...) comes from."""
    for package in packages:
        fields = _fields(package)
        if fields["name"].lower() in _TORCH_FAMILY and fields.get("source") in (None, "index"):
            match = _TORCH_LOCAL_TAG.search(fields.get("version") or "")
            if match:
                return _TORCH_INDEX + match.group(1)
    return None


def header_lines(manifest: Manifest, tool: str) -> list[str]:
    """Comment lines naming the manifest and the interpreter the pins were captured with."""
    python = manifest.python
    interpreter = (
        f"{python.implementation or 'Python'} {python.version}" if python else "not recorded"
    )
    return [
        f"# Recreates the Python environment of an envsnap manifest ({tool}).",
        f"# manifest digest: {terminal_text(manifest.digest or '(none)')}",
        f"# captured: {manifest.created_at.isoformat()}; interpreter: {terminal_text(interpreter)}",
    ]


def to_requirements(manifest: Manifest | LeanManifest) -> str:
    """The requirements text; a manifest without a packages section gets an explaining comment."""
    lean = as_lean(manifest)
    lines = header_lines(lean.manifest, "pip install -r FILE, in a fresh virtual environment")
    if lean.manifest.packages is None:
        return "\n".join([*lines, "# the manifest records no packages section"]) + "\n"
    packages = distinct_packages(lean.installed.values())
    index = torch_index(packages)
    if index is not None:
        lines.append(f"--extra-index-url {index}")
    lines += [requirement_line(package, _checkout(lean.manifest, package)) for package in packages]
    return "\n".join(lines) + "\n"
