"""`packages`: installed distributions (without importing them), lock files, conda records."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from envsnap.collectors.base import CaptureContext, Collector
from envsnap.hashing import sha256_file
from envsnap.redact import Redactor
from envsnap.sections.packages import CondaPackage, LockFile, Package, PackagesSection

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


def _source(dist: metadata.Distribution, redactor: Redactor) -> dict[str, Any]:
    try:
        raw = dist.read_text("direct_url.json")
    except OSError:
        raw = None
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
    return {"source": "url", "url": url}


def installed_packages(redactor: Redactor) -> dict[str, Package]:
    """Every distribution on sys.path; the first one found for a name is the one imported."""
    packages: dict[str, Package] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name:
            continue
        key = canonical_name(name)
        version = dist.version or ""
        if key in packages:
            packages[key].shadowed.append(version)
            continue
        try:
            installer = (dist.read_text("INSTALLER") or "").strip() or None
        except OSError:
            installer = None
        packages[key] = Package(
            name=name, version=version, installer=installer, **_source(dist, redactor)
        )
    return dict(sorted(packages.items()))


def lock_files(root: Path, unknown: dict[str, str]) -> list[LockFile]:
    found: dict[str, LockFile] = {}
    for pattern in LOCK_FILE_PATTERNS:
        for path in root.glob(pattern):
            if not path.is_file() or path.name in found:
                continue
            try:
                found[path.name] = LockFile(
                    path=path.name, sha256=sha256_file(path), bytes=path.stat().st_size
                )
            except OSError as exc:
                unknown[f"lock_files.{path.name}"] = f"cannot read: {exc.strerror or exc}"
    return [found[name] for name in sorted(found)]


def conda_packages(prefix: Path) -> dict[str, CondaPackage] | None:
    """conda-meta records, parsed from their file names (name-version-build.json).

    The JSON bodies list every file of the package and can be megabytes each; the name holds
    everything we need.
    """
    meta = prefix / "conda-meta"
    if not meta.is_dir():
        return None
    records: dict[str, CondaPackage] = {}
    for path in sorted(meta.glob("*.json")):
        parts = path.stem.rsplit("-", 2)
        if len(parts) == 3:
            records[parts[0]] = CondaPackage(version=parts[1], build=parts[2])
    return records


def collect(context: CaptureContext) -> PackagesSection:
    unknown: dict[str, str] = {}
    root = project_root(context.cwd)
    return PackagesSection(
        installed=installed_packages(context.redactor),
        project_root=str(root),
        lock_files=lock_files(root, unknown),
        conda=conda_packages(Path(sys.prefix)),
        unknown=unknown,
    )


COLLECTOR = Collector(name="packages", collect=collect, timeout_s=6.0, description="packages")
