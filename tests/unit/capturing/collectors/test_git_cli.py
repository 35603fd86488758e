"""The `code` collector records the same facts through plain `git` as it did through GitPython.

Each case builds a real repository, then collects it twice: with the collector's own git reads
(`git_cli`) and with GitPython swapped in for them. Every field of the section, and the skip or
error reason, must be equal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors import code
from envsnap.capturing.run import run_collectors
from envsnap.manifest.records import plain
from tests.helpers import capture_context, git

gitpython = pytest.importorskip("git")

MakeRepo = Callable[..., Path]
Setup = Callable[[MakeRepo, Path], Path]


def _clean(make_repo: MakeRepo, tmp_path: Path) -> Path:
    return make_repo()


def _subdirectory(make_repo: MakeRepo, tmp_path: Path) -> Path:
    sub = make_repo() / "src" / "pkg"
    sub.mkdir(parents=True)
    return sub


def _dirty(make_repo: MakeRepo, tmp_path: Path) -> Path:
    repo = make_repo()
    (repo / "train.py").write_bytes(b"print('changed')\n\x00\xff binary tail\n")
    (repo / "notes dir").mkdir()
    (repo / "notes dir" / "new file.txt").write_text("untracked\n")
    (repo / "run.log").write_text("ignored\n")
    return repo


def _detached(make_repo: MakeRepo, tmp_path: Path) -> Path:
    repo = make_repo()
    (repo / "train.py").write_text("print('second')\n")
    git(repo, "commit", "-qam", "second")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    return repo


def _slashed_branch(make_repo: MakeRepo, tmp_path: Path) -> Path:
    repo = make_repo()
    git(repo, "checkout", "-q", "-b", "feature/faster-capture")
    git(repo, "tag", "feature/faster-capture")  # a tag of the same name must not change it
    return repo


def _linked_worktree(make_repo: MakeRepo, tmp_path: Path) -> Path:
    repo = make_repo()
    tree = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(tree))
    (tree / "extra.py").write_text("x = 1\n")
    return tree


def _behind_symlink(make_repo: MakeRepo, tmp_path: Path) -> Path:
    link = tmp_path / "link-to-repo"
    link.symlink_to(make_repo(), target_is_directory=True)
    return link


def _remotes_and_submodule(make_repo: MakeRepo, tmp_path: Path) -> Path:
    library = make_repo("library")
    repo = make_repo("app")
    git(repo, "submodule", "add", "-q", str(library), "third_party/library")
    git(repo, "commit", "-qm", "add submodule")
    git(repo, "remote", "add", "origin", "https://alice:s3cr3t-pw@github.com/org/repo.git")
    git(repo, "remote", "add", "backup", "ssh://git@example.com/org/repo.git")
    return repo


def _no_commits(make_repo: MakeRepo, tmp_path: Path) -> Path:
    return make_repo(commit=False)


def _not_a_repository(make_repo: MakeRepo, tmp_path: Path) -> Path:
    plain = tmp_path / "plain"
    plain.mkdir()
    return plain


def _objects_missing(make_repo: MakeRepo, tmp_path: Path) -> Path:
    repo = make_repo()
    for directory in (repo / ".git" / "objects").glob("??"):
        for item in directory.iterdir():
            item.unlink()
        directory.rmdir()
    return repo


CASES: dict[str, Setup] = {
    "clean": _clean,
    "subdirectory": _subdirectory,
    "dirty": _dirty,
    "detached": _detached,
    "slashed_branch": _slashed_branch,
    "linked_worktree": _linked_worktree,
    "behind_symlink": _behind_symlink,
    "remotes_and_submodule": _remotes_and_submodule,
    "no_commits": _no_commits,
    "not_a_repository": _not_a_repository,
    "objects_missing": _objects_missing,
}


EXPECTED_STATUS = {
    "no_commits": "skipped",
    "not_a_repository": "skipped",
    "objects_missing": "error",
}


def _facts(cwd: Path) -> tuple[dict[str, Any] | None, str, str | None]:
    sections, records = run_collectors(["code"], capture_context(cwd))
    section = sections["code"]
    record = records["code"]
    return (plain(section) if section else None), record.status, record.reason


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_facts_as_gitpython(
    case: str, make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = CASES[case](make_repo, tmp_path)
    ours = _facts(cwd)
    monkeypatch.setattr(code, "git", gitpython)
    theirs = _facts(cwd)
    assert ours == theirs
    assert ours[1] == EXPECTED_STATUS.get(case, "ok")
