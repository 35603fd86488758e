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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.interop.importers.base import Imported, Source, decode_text, read_bytes
from envsnap.interop.importers.requirements import conda_python_and_pip, parse_requirements

FORMAT = "mlflow"
META = "meta.yaml"
ENV_FILES = ("requirements.txt", "conda.yaml", "python_env.yaml")
# Artifact trees are walked only this deep: a model directory sits one or two levels down.
MAX_ARTIFACT_DEPTH = 3
TAG_COMMIT = "mlflow.source.git.commit"
TAG_BRANCH = "mlflow.source.git.branch"
TAG_DIRTY = "mlflow.source.git.dirty"
TAG_REPO_URLS = ("mlflow.source.git.repoURL", "mlflow.gitRepoURL")
TAG_SOURCE = "mlflow.source.name"


def _yaml(data: bytes, source: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(decode_text(data, source, "YAML"))
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        raise ManifestError(f"{source}: not valid YAML ({problem})") from None


def run_directory(path: Path) -> Path:
    """The run directory, given it or its meta.yaml."""
    if path.is_file() and path.name == META:
        return path.parent
    if path.is_dir() and (path / META).is_file():
        return path
    if path.is_dir():
        raise ManifestError(f"{path}: no {META} here; expected an MLflow run directory")
    raise ManifestError(f"{path}: expected an MLflow run directory or its {META}")


def _artifact_files(root: Path, depth: int = 0) -> list[Path]:
    if depth > MAX_ARTIFACT_DEPTH or not root.is_dir():
        return []
    found: list[Path] = []
    for entry in sorted(root.iterdir()):
        if entry.is_file() and entry.name in ENV_FILES:
            found.append(entry)
        elif entry.is_dir() and not entry.is_symlink():
            found.extend(_artifact_files(entry, depth + 1))
    return found


def _model_artifacts(run_dir: Path, run_id: str) -> list[Path]:
    """MLflow 3 logged models of this run: <experiment>/models/<id>/ with source_run_id."""
    models = run_dir.parent / "models"
    found: list[Path] = []
    if not models.is_dir():
        return found
    for model in sorted(models.iterdir()):
        meta = model / META
        if not meta.is_file():
            continue
        document = _yaml(read_bytes(meta, META), str(meta))
        if isinstance(document, dict) and document.get("source_run_id") == run_id:
            found.extend(_artifact_files(model / "artifacts"))
    return found


def read_source(path: Path) -> tuple[Source, dict[str, Any], dict[str, str]]:
    """Read meta.yaml, the tags and the environment artifacts of one run."""
    run_dir = run_directory(path)
    meta_bytes = read_bytes(run_dir / META, META)
    meta = _yaml(meta_bytes, str(run_dir / META))
    if not isinstance(meta, dict) or "run_id" not in meta:
        raise ManifestError(f"{run_dir / META}: not an MLflow run meta.yaml (no run_id)")
    # Names relative to the experiment directory, so the digest does not depend on where the
    # store lives and a logged model's files (under <experiment>/models/) fit the same scheme.
    files: dict[str, bytes] = {f"{run_dir.name}/{META}": meta_bytes}
    tags: dict[str, str] = {}
    tag_dir = run_dir / "tags"
    if tag_dir.is_dir():
        for tag in sorted(tag_dir.iterdir()):
            if tag.is_file():
                data = read_bytes(tag, "an MLflow tag")
                files[f"{run_dir.name}/tags/{tag.name}"] = data
                tags[tag.name] = data.decode("utf-8", errors="replace").strip()
    run_id = str(meta["run_id"])
    for artifact in [*_artifact_files(run_dir / "artifacts"), *_model_artifacts(run_dir, run_id)]:
        relative = artifact.relative_to(run_dir.parent).as_posix()
        files[relative] = read_bytes(artifact, artifact.name)
    return Source(path=run_dir, files=files), meta, tags


def _started(meta: dict[str, Any]) -> datetime | None:
    start = meta.get("start_time")
    if isinstance(start, int) and not isinstance(start, bool) and start > 0:
        return datetime.fromtimestamp(start / 1000, tz=timezone.utc)
    return None


class _Mapper:
    def __init__(
        self, meta: dict[str, Any], tags: dict[str, str], source: Source, redactor: Redactor
    ) -> None:
        self.meta = meta
        self.tags = tags
        self.source = source
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

    def run(self) -> Imported:
        self.out.started_at = _started(self.meta)
        entry = self.tags.get(TAG_SOURCE)
        if entry:
            self.out.argv = self._source_argv(entry)
        self.out.facts["mlflow_run_id"] = str(self.meta["run_id"])
        for name in TAG_REPO_URLS:
            if self.tags.get(name):
                self.out.facts["mlflow_git_repo_url"] = self.redactor.redact_url(self.tags[name])
                break
        self.code()
        self.environment()
        return self.out

    def code(self) -> None:
        commit = self.tags.get(TAG_COMMIT)
        if not commit:
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

    def environment(self) -> None:
        python: str | None = None
        pins: list[str] = []
        for name, data in sorted(self.source.files.items()):
            base = name.rsplit("/", 1)[-1]
            if base == "python_env.yaml":
                document = _yaml(data, name)
                if isinstance(document, dict) and document.get("python"):
                    python = python or str(document["python"])
            elif base == "conda.yaml":
                conda_python, pip = conda_python_and_pip(_yaml(data, name))
                python = python or conda_python
                pins.extend(pip)
            elif base == "requirements.txt":
                pins.extend(data.decode("utf-8", errors="replace").splitlines())
        if python:
            self.out.put("python", "version", python)
        if not pins:
            return
        installed, unpinned = parse_requirements("\n".join(pins), self.redactor)
        for entry in installed.values():
            entry.setdefault("version", None)
            entry.setdefault("installer", None)
        self.out.put("packages", "installed", installed)
        reason = "MLflow records the requirements it inferred for logged models, not every package"
        if unpinned:
            reason += f"; listed without a pinned version: {', '.join(unpinned)}"
        self.out.note_unknown("packages", "installed", reason)
        self.out.put_unknown("packages", "project_root")


def read_mlflow(path: Path, redactor: Redactor | None = None) -> tuple[Source, Imported]:
    """Read an MLflow file-store run into imported facts."""
    source, meta, tags = read_source(path)
    return source, _Mapper(meta, tags, source, redactor or Redactor()).run()
