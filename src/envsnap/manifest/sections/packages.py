"""The `packages` section: installed distributions, lock files and conda records."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section

PackageSource = Literal["index", "editable", "vcs", "url", "local"]


class Package(Model):
    name: str = Field(description="Distribution name as its metadata spells it.")
    version: str | None = Field(
        description="Installed version string, including any local tag (+cu121)."
    )
    installer: str | None = Field(description="Tool that installed it (pip, uv, conda...).")
    source: PackageSource | None = Field(
        description="'index' (a registry), 'editable', 'vcs', 'url' (archive) or 'local' "
        "(a directory), from PEP 610 direct_url.json."
    )
    url: str | None = Field(default=None, description="Direct URL, credentials removed.")
    vcs: str | None = Field(default=None, description="VCS kind for VCS installs (git...).")
    commit: str | None = Field(default=None, description="Commit id of a VCS install.")
    hashes: dict[str, str] = Field(
        default_factory=dict,
        description="Archive hashes of a 'url' install (algorithm -> hex), from PEP 610 "
        "archive_info; empty when the installer did not record them.",
    )
    shadowed: list[str] = Field(
        default_factory=list,
        description="Versions of the same name found later on sys.path and hidden by this one.",
    )
    imported: bool | None = Field(
        default=None,
        description="Whether the job had imported one of its top-level modules when it called "
        "the in-job API (envsnap's own imports for the capture not counted); null for a capture "
        "from outside the job, or when its modules could not be told.",
    )


class LockFile(Model):
    path: str = Field(description="Path relative to the project root.")
    sha256: str | None = Field(
        description="sha256 of the file's bytes; null when it could not be read (the reason is "
        "in the section's unknown, under lock_files.<path>)."
    )
    bytes: int | None = Field(description="File size; null when it could not be read.")


class CondaPackage(Model):
    version: str = Field(description="Package version.")
    build: str = Field(description="Build string (e.g. cuda12_py311).")
    channel: str | None = Field(
        default=None,
        description="Channel it came from (conda-forge, pytorch, or a URL without tokens); "
        "null when the record does not say.",
    )


class PackagesSection(Section):
    installed: dict[str, Package] = Field(
        description="Installed distributions keyed by normalized (PEP 503) name."
    )
    project_root: str | None = Field(
        description="Directory searched for lock files (repository root, else the cwd)."
    )
    lock_files: list[LockFile] = Field(
        default_factory=list, description="Lock and requirement files found, sorted by path."
    )
    conda: dict[str, CondaPackage] | None = Field(
        default=None,
        description="conda-meta records keyed by name when running in a conda environment.",
    )
