"""Read an MLflow run from a local file store (`mlruns/<experiment>/<run_id>/`).

A run directory holds `meta.yaml`, one file per tag under `tags/` (`mlflow.source.git.commit`,
`mlflow.source.git.branch`, `mlflow.source.git.dirty`...), and the artifacts. MLflow records no
OS, CPU or GPU facts; its package lists come with logged models (`requirements.txt`,
`conda.yaml`, `python_env.yaml`), found under the run's artifacts or, since MLflow 3, under
`<experiment>/models/<model_id>/artifacts/` for models whose `meta.yaml` names this run.
Those lists are what MLflow inferred a model needs, not every installed package.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.interop.importers.base import Imported, Source, decode_text
from envsnap.interop.importers.bounds import (
    LINK_NOT_FOLLOWED,
    NOT_READ,
    RunFolder,
    load_yaml,
    truncated,
)
from envsnap.interop.importers.requirements import conda_python_and_pip, parse_requirements

FORMAT = "mlflow"
META = "meta.yaml"
# Artifact trees are walked only this deep: a model directory sits one or two levels down.
MAX_ARTIFACT_DEPTH = 3
TAG_COMMIT = "mlflow.source.git.commit"
TAG_BRANCH = "mlflow.source.git.branch"
TAG_DIRTY = "mlflow.source.git.dirty"
TAG_REPO_URLS = ("mlflow.source.git.repoURL", "mlflow.gitRepoURL")
TAG_SOURCE = "mlflow.source.name"
# The kinds of file read, as envsnap.interop.importers.bounds.BOUNDS names (and caps) them.
RUN_META = "an MLflow run meta.yaml"
MODEL_META = "an MLflow model meta.yaml"
TAG = "an MLflow tag"
ENV_KINDS = {
    "requirements.txt": "a requirements.txt",
    "conda.yaml": "a conda.yaml",
    "python_env.yaml": "a python_env.yaml",
}
ENV_FILES = tuple(ENV_KINDS)


def _yaml(data: bytes, source: str) -> Any:
    return load_yaml(decode_text(data, source, "YAML"), source)


def run_directory(path: Path) -> Path:
    """The run directory, given it or its meta.yaml."""
    if path.is_file() and path.name == META:
        return path.parent
    if path.is_dir() and (path / META).is_file():
        return path
    if path.is_dir():
        raise ManifestError(f"{path}: no {META} here; expected an MLflow run directory")
    raise ManifestError(f"{path}: expected an MLflow run directory or its {META}")


def _artifact_files(folder: RunFolder, relative: str, depth: int = 0) -> list[str]:
    """Environment files under `relative`, a few levels down; a link is noted, never followed."""
    found: list[str] = []
    for name, kind in folder.entries(relative).items():
        entry = f"{relative}/{name}"
        if kind == "link":
            folder.note(entry, LINK_NOT_FOLLOWED)
        elif kind == "dir" and depth < MAX_ARTIFACT_DEPTH:
            found.extend(_artifact_files(folder, entry, depth + 1))
        elif name in ENV_FILES:
            found.append(entry)  # reading it refuses a pipe or a folder named like one
    return found


def _model_artifacts(folder: RunFolder, run_id: str) -> list[str]:
    """MLflow 3 logged models of this run: <experiment>/models/<id>/ with source_run_id."""
    found: list[str] = []
    if folder.entries().get("models") != "dir":
        return found
    for model, kind in folder.entries("models").items():
        if kind != "dir" or folder.entries(f"models/{model}").get(META) is None:
            continue
        if _model_of(folder, f"models/{model}/{META}") == run_id:
            found.extend(_artifact_files(folder, f"models/{model}/artifacts"))
    return found


def _model_of(folder: RunFolder, meta: str) -> object:
    """The source_run_id a model's meta.yaml names. Most models belong to other runs: one that
    cannot be read or parsed is noted and passed over, never the end of this run's import."""
    data = folder.read(meta, MODEL_META, keep=False)
    try:
        document = _yaml(data, meta) if data is not None else None
    except ManifestError as exc:
        folder.note(meta, str(exc))
        return None
    return document.get("source_run_id") if isinstance(document, dict) else None


def _tags(folder: RunFolder, run: str) -> dict[str, str]:
    """Tag name -> value (cut at MAX_VALUE_CHARS, marked); tags not read are noted."""
    tags: dict[str, str] = {}
    for name, kind in folder.entries(f"{run}/tags").items():
        if kind == "dir":
            continue  # not a tag MLflow writes
        data = folder.read(f"{run}/tags/{name}", TAG)
        if data is not None:
            tags[name] = truncated(data.decode("utf-8", errors="replace").strip())
    return tags


@dataclass
class RunRecord:
    """What was read of one run: its files (for the digest), meta.yaml, tags, environment files."""

    source: Source
    meta: dict[str, Any]
    tags: dict[str, str]
    environment: list[str]
    folder: RunFolder


def read_source(path: Path) -> RunRecord:
    """Read meta.yaml, the tags and the environment artifacts of one run."""
    run_dir = run_directory(path).resolve()
    # Names are relative to the experiment directory, so the digest does not depend on where
    # the store lives and a logged model's files (under <experiment>/models/) fit the same
    # scheme; nothing is read outside that directory, and no link inside it is followed.
    folder = RunFolder.of(run_dir.parent)
    run = run_dir.name
    meta_bytes = folder.require(f"{run}/{META}", RUN_META)
    meta = _yaml(meta_bytes, str(run_dir / META))
    if not isinstance(meta, dict) or "run_id" not in meta:
        raise ManifestError(f"{run_dir / META}: not an MLflow run meta.yaml (no run_id)")
    listed = folder.entries(run)
    for linked in (name for name in ("tags", "artifacts") if listed.get(name) == "link"):
        folder.note(f"{run}/{linked}", LINK_NOT_FOLLOWED)
    tags = _tags(folder, run) if listed.get("tags") == "dir" else {}
    artifacts = (
        _artifact_files(folder, f"{run}/artifacts") if listed.get("artifacts") == "dir" else []
    )
    found = [*artifacts, *_model_artifacts(folder, str(meta["run_id"]))]
    environment = [name for name in found if folder.read(name, ENV_KINDS[_base(name)]) is not None]
    return RunRecord(Source(path=run_dir, files=folder.files), meta, tags, environment, folder)


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _started(meta: dict[str, Any]) -> datetime | None:
    start = meta.get("start_time")
    if isinstance(start, int) and not isinstance(start, bool) and start > 0:
        try:
            return datetime.fromtimestamp(start / 1000, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):  # beyond any calendar
            return None
    return None


class _Mapper:
    def __init__(self, record: RunRecord, redactor: Redactor) -> None:
        self.record = record
        self.meta = record.meta
        self.tags = record.tags
        self.redactor = redactor
        self.out = Imported(format=FORMAT)

    def _source_argv(self, entry: str) -> list[str]:
        """The source entry as argv. It may be a whole command line (`python train.py --token
        X`): split it first so `--token X` is seen; kept as one entry when nothing was hidden."""
        try:
            words = shlex.split(entry)
        except ValueError:  # unbalanced quotes
            words = entry.split()
        redacted = self.redactor.redact_argv(words)
        return [entry] if redacted == words else redacted

    def _tag_unread(self, name: str) -> str | None:
        """Why the tag `name` was not read, when it is there but was skipped."""
        return self.record.folder.reason(f"{self.record.source.path.name}/tags/{name}")

    def run(self) -> Imported:
        self.out.started_at = _started(self.meta)
        entry = self.tags.get(TAG_SOURCE)
        if entry:
            self.out.argv = self._source_argv(entry)
        self.out.facts["mlflow_run_id"] = truncated(str(self.meta["run_id"]))
        for name in TAG_REPO_URLS:
            if self.tags.get(name):
                self.out.facts["mlflow_git_repo_url"] = self.redactor.redact_url(self.tags[name])
                break
        self.code()
        self.environment()
        notes = self.record.folder.notes()
        if notes:
            self.out.facts[NOT_READ] = notes
        return self.out

    def code(self) -> None:
        commit = self.tags.get(TAG_COMMIT)
        if not commit:
            unread = self._tag_unread(TAG_COMMIT)
            if unread:  # the section needs a commit: say why there is none
                self.out.section_reasons["code"] = f"MLflow tag {TAG_COMMIT} not read: {unread}"
            return
        self.out.put("code", "commit", commit)
        branch = self.tags.get(TAG_BRANCH)
        if branch:
            self.out.put("code", "branch", branch)
        else:
            self.out.put_unknown("code", "branch")
        dirty = self.tags.get(TAG_DIRTY, "").lower()
        if dirty in ("true", "false"):
            self.out.put("code", "dirty", dirty == "true")
        else:
            self.out.put_unknown("code", "dirty")
        for name in (
            "repo_root",
            "detached",
            "diff_sha256",
            "diff_bytes",
            "untracked_count",
            "untracked_digest",
        ):
            self.out.put_unknown("code", name)
        self.out.note_unknown("code", "remotes", "MLflow records a repository URL, not remotes")
        self.out.note_unknown("code", "submodules")

    def _pins(self, name: str, data: bytes) -> tuple[str | None, list[str]]:
        """The Python version and requirement lines one environment file states."""
        base = _base(name)
        if base == "python_env.yaml":
            document = _yaml(data, name)
            if isinstance(document, dict) and document.get("python"):
                return truncated(str(document["python"])), []
            return None, []
        if base == "conda.yaml":
            return conda_python_and_pip(_yaml(data, name))
        return None, data.decode("utf-8", errors="replace").splitlines()

    def environment(self) -> None:
        folder = self.record.folder
        python: str | None = None
        pins: list[str] = []
        for name in sorted(self.record.environment):
            data = self.record.source.files[name]
            # Count a plain list before splitting it: a short line costs more as a str.
            if folder.refuses_long_list(name, data.count(b"\n")):
                continue
            stated_python, lines = self._pins(name, data)
            if folder.refuses_long_list(name, len(lines)):
                continue
            python = python or stated_python
            pins.extend(lines)
        # A skipped file or link where environment files are looked for may have held one.
        run = self.record.source.path.name
        unread = [
            name for name in folder.not_read if name.startswith((f"{run}/artifacts", "models/"))
        ]
        not_read = f"not read: {', '.join(unread)} (see imported_from.facts.{NOT_READ})"
        if python:
            self.out.put("python", "version", python)
        elif unread:
            self.out.put_unknown("python", "version", not_read)
        if not pins and not unread:
            return
        installed, unpinned = parse_requirements("\n".join(pins), self.redactor)
        for entry in installed.values():
            entry.setdefault("version", None)
            entry.setdefault("installer", None)
            entry.setdefault("source", None)
        self.out.put("packages", "installed", installed)
        reason = "MLflow records the requirements it inferred for logged models, not every package"
        if unpinned:
            reason += f"; listed without a pinned version: {', '.join(unpinned)}"
        if unread:
            reason += f"; {not_read}"
        self.out.note_unknown("packages", "installed", reason)
        self.out.put_unknown("packages", "project_root")


def read_mlflow(path: Path, redactor: Redactor | None = None) -> tuple[Source, Imported]:
    """Read an MLflow file-store run into imported facts."""
    record = read_source(path)
    return record.source, _Mapper(record, redactor or Redactor()).run()
