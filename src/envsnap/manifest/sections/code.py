"""The `code` section: which source tree the job ran."""

from __future__ import annotations

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class Submodule(Model):
    path: str = Field(description="Submodule path relative to the repository root.")
    commit: str = Field(description="Commit the submodule is checked out at.")
    state: str = Field(
        description="'clean', 'modified' (checked-out commit differs from the recorded one), "
        "'uninitialized' or 'conflict', from `git submodule status`."
    )


class Remote(Model):
    name: str = Field(description="Remote name, e.g. origin.")
    url: str = Field(description="Remote URL with any credentials removed.")


class CodeSection(Section):
    repo_root: str | None = Field(description="Absolute path of the repository's working tree.")
    commit: str = Field(description="Full hex id of HEAD.")
    branch: str | None = Field(description="Checked-out branch; null when HEAD is detached.")
    detached: bool | None = Field(description="True when HEAD is detached (no branch).")
    dirty: bool | None = Field(
        description="True when tracked files differ from HEAD (a non-empty patch); untracked "
        "files do not count (see untracked_count). Manifests written by earlier envsnap "
        "versions may also count untracked, non-ignored files here."
    )
    diff_sha256: str | None = Field(
        description="sha256 of the binary-safe `git diff HEAD --binary` patch; null when clean."
    )
    diff_bytes: int | None = Field(description="Size of that patch in bytes (0 when clean).")
    patch: str | None = Field(
        default=None,
        description="The patch itself (UTF-8 text, secrets redacted) when it is at most 256 KiB; "
        "null when clean or larger (unknown.patch then says why; diff_sha256 and diff_bytes "
        "still identify it).",
    )
    untracked_count: int | None = Field(
        description="Number of untracked files that are not ignored."
    )
    untracked_digest: str | None = Field(
        description="sha256 over the sorted (path, content sha256) pairs of untracked files; "
        "null when there are none. Past the hashing budget (64 MiB per file, 256 MiB in all) a "
        "file counts by its size, and unknown.untracked_digest says so."
    )
    untracked_python: int | None = Field(
        default=None,
        description="How many of the untracked files are Python code the job could import "
        "(.py, .pyx, .pxd, .pyi, .so, .pth); null when the untracked names were not read.",
    )
    submodules: list[Submodule] = Field(
        default_factory=list, description="Submodules (recursive), sorted by path."
    )
    remotes: list[Remote] = Field(default_factory=list, description="Remotes, sorted by name.")
