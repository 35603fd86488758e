"""`packages`: installed distributions (without importing them), lock files, conda records."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.capturing.redact import Redactor
from envsnap.files.reader import read_if_regular
from envsnap.manifest.hashing import sha256_file
from envsnap.manifest.records import CondaPackage, LockFile, Package, PackagesSection

# Files at the project root that pin the environment.
LOCK_FILE_PATTERNS: tuple[str, ...] = (
    "uv.lock",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "pixi.lock",
    "requirements*.txt",
    "requirements*.in",
    "constraints*.txt",
    "environment.yml",
    "environment.yaml",
    "conda-lock.yml",
    "conda-lock.yaml",
)


def canonical_name(name: str) -> str:
    """PEP 503 normalisation, inlined because packaging.utils costs an import on the hot path."""
    out = []
    previous_sep = False
    for char in name.lower():
        if char in "-_.":
            if not previous_sep:
                out.append("-")
            previous_sep = True
        else:
            out.append(char)
            previous_sep = False
    return "".join(out)


def project_root(cwd: Path) -> Path:
    """The enclosing git working tree, else the working directory."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd


class Distribution(Protocol):
    """What this collector reads of an installed distribution (importlib.metadata's
    Distribution has it too)."""

    def read_text(self, filename: str) -> str | None: ...

    @property
    def metadata(self) -> Any: ...


class MetadataDirectory:
    """A *.dist-info or *.egg-info directory, read with plain file calls.

    importlib.metadata finds and reads the same files through pathlib objects, which cost
    more than the reading itself, and importing it pulls in the e-mail package.
    """

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self, filename: str) -> str | None:
        """The file's text (None when absent, not a regular file or over the input cap), newlines
        as `\\n`. Read without a file object: for the three small files of each distribution the
        io stack cost more than the reading; and never from a pipe put there."""
        data = read_if_regular(os.path.join(self.path, filename))
        if data is None:
            return None
        text = data.decode("utf-8")
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    @property
    def metadata(self) -> Any:
        """The e-mail parser's reading (the fallback for unusual metadata files)."""
        from importlib import metadata

        return metadata.PathDistribution(Path(self.path)).metadata


# A package's private copies of its dependencies. setuptools puts its own `_vendor` directory
# on sys.path when imported (torch.compile's inductor imports it), and its dist-info entries
# are then found like installed packages: packaging, wheel and jaraco.* at setuptools' pins.
_VENDOR_DIRS = frozenset({"_vendor", "_vendored"})


def _vendored(entry: str) -> bool:
    """True for a sys.path entry inside a package's vendored-dependencies directory."""
    return not _VENDOR_DIRS.isdisjoint(Path(entry).parts)


def distributions(paths: Sequence[str] | None = None) -> Iterator[Distribution]:
    """The installed distributions on `paths` (default sys.path), in importlib.metadata's order:
    path by path, and within a directory its *.dist-info and *.egg-info entries grouped by
    name, then an egg directory's EGG-INFO. Zip archives on the path go through
    importlib.metadata itself."""
    for entry in sys.path if paths is None else paths:
        root = entry or "."
        if _vendored(root):
            continue
        try:
            children = os.listdir(root)
        except NotADirectoryError:
            from importlib import metadata

            yield from metadata.distributions(path=[root])
            continue
        except OSError:
            continue
        by_name: dict[str, list[str]] = {}
        for child in sorted(children):
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                name = canonical_name(low.rpartition(".")[0].partition("-")[0])
                by_name.setdefault(name, []).append(child)
        for group in by_name.values():
            yield from (MetadataDirectory(os.path.join(root, child)) for child in group)
        if os.path.basename(root).lower().endswith(".egg"):
            for child in sorted(children):
                if child.lower() == "egg-info":
                    yield MetadataDirectory(os.path.join(root, child))


def _source(dist: Distribution, redactor: Redactor) -> dict[str, Any]:
    raw = _read(dist, "direct_url.json")
    if not raw:
        return {"source": "index"}
    try:
        info = json.loads(raw)
    except json.JSONDecodeError:
        return {"source": "url", "url": None}
    url = redactor.redact_url(str(info.get("url", ""))) or None
    if "vcs_info" in info:
        vcs = info["vcs_info"]
        return {"source": "vcs", "url": url, "vcs": vcs.get("vcs"), "commit": vcs.get("commit_id")}
    if info.get("dir_info", {}).get("editable"):
        return {"source": "editable", "url": url}
    if "dir_info" in info:
        return {"source": "local", "url": url}
    return {"source": "url", "url": url, "hashes": _archive_hashes(info.get("archive_info"))}


def _archive_hashes(archive: object) -> dict[str, str]:
    """PEP 610 archive hashes: the `hashes` map, or the older single `hash` ("sha256=hex")."""
    if not isinstance(archive, dict):
        return {}
    hashes = archive.get("hashes")
    if isinstance(hashes, dict):
        return {str(k): str(v) for k, v in hashes.items() if isinstance(v, str)}
    algorithm, sep, value = str(archive.get("hash", "")).partition("=")
    return {algorithm: value} if sep and value else {}


def _read(dist: Distribution, filename: str) -> str | None:
    try:
        return dist.read_text(filename)
    except (OSError, UnicodeDecodeError):
        return None


def name_and_version(dist: Distribution) -> tuple[str | None, str | None]:
    """Name and Version from the metadata file's header block.

    `dist.metadata` runs the stdlib e-mail parser over the whole file (long descriptions
    included) and `dist.version` parses it a second time; that was most of a capture's time.
    Name and Version are plain single-line headers before the first blank line, so reading
    them directly is exact. The e-mail parser stays as the fallback for unusual files.
    """
    text = _read(dist, "METADATA") or _read(dist, "PKG-INFO")
    found: dict[str, str] = {}
    if text:
        # Cut before splitting: descriptions can be tens of KiB.
        for line in text.partition("\n\n")[0].splitlines():
            if not line.strip():
                break  # end of the header block: the description follows
            key, sep, value = line.partition(":")
            key = key.strip().lower()
            if sep and key in ("name", "version") and key not in found:
                found[key] = value.strip()
                if len(found) == 2:
                    break
    if "name" not in found:
        if isinstance(dist, MetadataDirectory) and text is None and not os.path.isfile(dist.path):
            # Nothing readable (importlib.metadata finds no name either), or a pipe: skipped.
            return None, None
        parsed = dist.metadata
        return parsed["Name"] or None, parsed["Version"] or None
    return found["name"] or None, found.get("version")


# Set by `envsnap run --packages` for its own capture: the run's package venv.
PACKAGES_FRONT_ENV = "ENVSNAP_PACKAGES_FRONT"


def _module_name(name: str) -> str:
    """A distribution's name as the module it usually installs (typing-extensions ->
    typing_extensions)."""
    return canonical_name(name).replace("-", "_")


_RECORD_HEAD = 4096  # bytes of RECORD read for a distribution without top_level.txt


def _record_head(dist: Distribution) -> str:
    """The first lines of a distribution's RECORD (its own files come first), read without the
    rest: a large package's RECORD lists thousands of files."""
    if not isinstance(dist, MetadataDirectory):
        return ""
    try:
        with open(os.path.join(dist.path, "RECORD"), "rb") as handle:
            return handle.read(_RECORD_HEAD).decode("utf-8", "replace")
    except OSError:
        return ""


def top_level_modules(dist: Distribution, name: str) -> frozenset[str]:
    """The top-level modules a distribution installs: its top_level.txt, else the first
    components of the paths the head of its RECORD lists, else its name as a module."""
    listed = _read(dist, "top_level.txt")
    if listed is not None:
        return frozenset(line.strip() for line in listed.splitlines() if line.strip())
    found: set[str] = set()
    for line in _record_head(dist).splitlines():
        head = line.partition(",")[0].split("/", 1)[0]
        if head.endswith(".py"):
            head = head[:-3]
        if head.isidentifier():  # not a .dist-info, .data or .pth entry
            found.add(head)
    return frozenset(found or {_module_name(name)})


def mark_imported(
    packages: dict[str, Package], dists: dict[str, Distribution], job_modules: frozenset[str]
) -> None:
    """Set `imported` on every package. A package whose name is a loaded module is imported;
    the others' module lists (top_level.txt, the head of RECORD) are read only while some loaded
    module has no distribution yet. An editable install whose name is not a loaded module stays
    unknown: its RECORD names the path hook, not its modules."""
    unclaimed = set(job_modules) - {_module_name(package.name) for package in packages.values()}
    for key, package in packages.items():
        if _module_name(package.name) in job_modules:
            package.imported = True
            continue
        if package.source == "editable":
            continue  # its modules are found through a path hook its files do not name: unknown
        if not unclaimed:
            package.imported = False
            continue
        modules = top_level_modules(dists[key], package.name)
        package.imported = not modules.isdisjoint(job_modules)
        unclaimed -= modules


def installed_packages(
    redactor: Redactor, job_modules: frozenset[str] | None = None
) -> dict[str, Package]:
    """Every distribution on sys.path; the first one found for a name is the one imported.

    Under `envsnap run --packages`, the run's package venv (ENVSNAP_PACKAGES_FRONT) is listed
    first, as the job saw it: its metadata is read, its code is never put on sys.path. With
    `job_modules` (an in-job capture), each says whether the job had imported it.
    """
    front = os.environ.get(PACKAGES_FRONT_ENV)
    packages: dict[str, Package] = {}
    found: dict[str, Distribution] = {}
    for dist in distributions([front, *sys.path] if front else None):
        name, version = name_and_version(dist)
        if not name:
            continue
        key = canonical_name(name)
        version = version or ""
        if key in packages:
            packages[key].shadowed.append(version)
            continue
        installer = (_read(dist, "INSTALLER") or "").strip() or None
        packages[key] = Package(
            name=name, version=version, installer=installer, **_source(dist, redactor)
        )
        found[key] = dist
    if job_modules is not None:
        mark_imported(packages, found, job_modules)
    return dict(sorted(packages.items()))


def lock_files(root: Path, unknown: dict[str, str]) -> list[LockFile]:
    """Digests of the lock and requirement files at `root`; an unreadable one stays listed."""
    found: dict[str, LockFile] = {}
    for pattern in LOCK_FILE_PATTERNS:
        for path in root.glob(pattern):
            if path.name in found or not path.is_file():
                continue
            try:
                size = path.stat().st_size
                digest = sha256_file(path)
            except OSError as exc:
                unknown[f"lock_files.{path.name}"] = f"cannot read: {exc.strerror or exc}"
                found[path.name] = LockFile(path=path.name, sha256=None, bytes=None)
                continue
            found[path.name] = LockFile(path=path.name, sha256=digest, bytes=size)
    return [found[name] for name in sorted(found)]


def conda_packages(
    prefix: Path, redactor: Redactor | None = None
) -> dict[str, CondaPackage] | None:
    """conda-meta records: name, version and build from the file name (name-version-build.json),
    the channel from the head of the file.

    The JSON bodies list every file of the package and can be megabytes each; conda writes
    their keys sorted, so `channel` sits within the first few hundred bytes.
    """
    meta = prefix / "conda-meta"
    if not meta.is_dir():
        return None
    records: dict[str, CondaPackage] = {}
    for path in sorted(meta.glob("*.json")):
        parts = path.stem.rsplit("-", 2)
        if len(parts) == 3:
            records[parts[0]] = CondaPackage(
                version=parts[1],
                build=parts[2],
                channel=_conda_channel(path, redactor or Redactor()),
            )
    return records


_CHANNEL_KEY = re.compile(r'"channel"\s*:\s*"([^"\\]{1,300})"')
# conda's platform folders (https://docs.conda.io/projects/conda/en/latest/user-guide/concepts/channels.html)
_SUBDIR = re.compile(r"/(noarch|(linux|osx|win|emscripten|wasi|zos)-[a-z0-9_]+)$")


def _conda_channel(path: Path, redactor: Redactor) -> str | None:
    """The channel name (conda-forge, pytorch...) or URL, token and platform folder removed."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    found = _CHANNEL_KEY.search(head)
    if found is None:
        return None
    channel = _SUBDIR.sub("", redactor.redact_url(found.group(1)).rstrip("/"))
    channel = re.sub(r"/t/[^/]+", "", channel)  # anaconda.org access tokens live in the path
    for host in ("https://conda.anaconda.org/", "http://conda.anaconda.org/"):
        if channel.startswith(host):
            return channel.removeprefix(host) or None
    return channel or None


def collect(context: CaptureContext) -> PackagesSection:
    unknown: dict[str, str] = {}
    root = project_root(context.cwd)
    return PackagesSection(
        installed=installed_packages(context.redactor, context.job_modules),
        project_root=str(root),
        lock_files=lock_files(root, unknown),
        conda=conda_packages(Path(sys.prefix), context.redactor),
        unknown=unknown,
    )


COLLECTOR = Collector(name="packages", collect=collect, timeout_s=6.0, description="packages")
