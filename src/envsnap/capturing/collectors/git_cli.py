"""The git reads of the `code` collector, as plain `git` subprocesses.

A capture reads a handful of facts (top level, HEAD commit, branch) and runs a few plumbing
commands; `git` itself answers each in a few milliseconds, while importing GitPython cost more
than the whole collector. The names follow the GitPython subset the collector used, so the
collector reads the same either way: `Repo`, `repo.head`, `repo.active_branch`,
`repo.git.execute` and the error classes.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

# git's messages in English whatever the user's locale, as the collector reports them.
_C_LOCALE = {"LANGUAGE": "C", "LC_ALL": "C"}
_DEFAULT_TIMEOUT_S = 4.0


class GitError(Exception):
    """Base of the errors below."""


class GitCommandNotFound(GitError):
    """No `git` executable on PATH."""


class InvalidGitRepositoryError(GitError):
    """The directory is not inside a git work tree that git can read."""


class NoSuchPathError(GitError):
    """The directory does not exist."""


class GitCommandError(GitError):
    """A git command exited non-zero (or ran out of time: status -1)."""

    def __init__(self, argv: Sequence[str], status: int, stderr: str) -> None:
        super().__init__(f"{' '.join(argv)} exited {status}: {stderr.strip()[:200]}")
        self.status = status
        self.stderr = stderr


def _run(
    argv: Sequence[str], cwd: Path, timeout: float = _DEFAULT_TIMEOUT_S
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            list(argv),
            cwd=cwd,
            env={**os.environ, **_C_LOCALE},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise GitCommandNotFound("git executable not found on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitCommandError(argv, -1, f"timed out after {timeout:.1f} s") from None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _as_reached_from(start: Path, top: Path) -> Path:
    """The top level spelled as the ancestor of `start` it is: git prints it with symbolic
    links resolved, while the directory the job named may lie behind one."""
    for candidate in (start, *start.parents):
        try:
            if candidate == top or os.path.samefile(candidate, top):
                return candidate
        except OSError:
            continue
    return top


class Git:
    """Runs git commands in one work tree."""

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd

    def execute(
        self,
        argv: Sequence[str],
        *,
        kill_after_timeout: float | None = None,
        stdout_as_string: bool = True,
        strip_newline_in_stdout: bool = False,
        with_extended_output: bool = False,
    ) -> str | bytes:
        """stdout of `argv` (text, or bytes when `stdout_as_string` is false).

        Raises `GitCommandError` on a non-zero exit or when the time limit passes.
        """
        if with_extended_output:
            raise NotImplementedError("with_extended_output is not supported")
        done = _run(argv, self._cwd, kill_after_timeout or _DEFAULT_TIMEOUT_S)
        if done.returncode != 0:
            raise GitCommandError(argv, done.returncode, _text(done.stderr))
        if not stdout_as_string:
            return done.stdout
        text = _text(done.stdout)
        return text.rstrip("\n") if strip_newline_in_stdout else text


@dataclass(frozen=True)
class Commit:
    hexsha: str


@dataclass(frozen=True)
class Branch:
    name: str


class Head:
    """HEAD of a work tree, read on first use."""

    def __init__(self, git: Git, sha: str | None = None, ref: str | None = None) -> None:
        self._git = git
        self._sha = sha
        self._ref = ref
        self._ref_read = sha is not None  # read together with the commit

    def is_valid(self) -> bool:
        """Whether HEAD names a commit whose object can be read."""
        if self._sha is None:
            try:
                out = self._git.execute(["git", "rev-parse", "-q", "--verify", "HEAD^{commit}"])
            except GitCommandError:
                return False
            self._sha = str(out).strip()
        return True

    @property
    def commit(self) -> Commit:
        if not self.is_valid() or self._sha is None:
            raise ValueError("HEAD does not name a readable commit")
        return Commit(self._sha)

    @property
    def ref(self) -> str | None:
        """The full name of the branch HEAD points to (`refs/heads/...`), None when detached."""
        if not self._ref_read:
            try:
                out = self._git.execute(["git", "symbolic-ref", "-q", "HEAD"])
                self._ref = str(out).strip() or None
            except GitCommandError as exc:
                if exc.status != 1:  # 1 means "HEAD is not a symbolic ref": detached
                    raise
            self._ref_read = True
        return self._ref

    @property
    def is_detached(self) -> bool:
        return self.ref is None


class Repo:
    """The git work tree holding `path` (git searches the parent directories itself)."""

    def __init__(self, path: str | os.PathLike[str], search_parent_directories: bool = True):
        start = Path(os.path.abspath(path))
        if not start.is_dir():
            raise NoSuchPathError(str(start))
        # One call for the top level, HEAD's commit and the branch HEAD points to ("HEAD"
        # when detached). With no readable commit it fails after printing the top level.
        argv = ["git", "rev-parse", "--show-toplevel", "HEAD^{commit}"]
        done = _run([*argv, "--symbolic-full-name", "HEAD"], start)
        lines = _text(done.stdout).splitlines()
        if not lines:
            raise InvalidGitRepositoryError(_text(done.stderr).strip() or str(start))
        root = _as_reached_from(start, Path(lines[0]))
        self.working_tree_dir: str | None = str(root)
        # Commands run at the top level, so the paths they print are relative to it.
        self.git = Git(root)
        if done.returncode == 0 and len(lines) == 3:
            ref = None if lines[2] == "HEAD" else lines[2]
            self.head = Head(self.git, sha=lines[1], ref=ref)
        else:
            self.head = Head(self.git)

    @property
    def active_branch(self) -> Branch:
        ref = self.head.ref
        if ref is None:
            raise TypeError("HEAD is detached")
        parts = ref.split("/", 2)
        return Branch(parts[2] if len(parts) == 3 else ref)

    def __enter__(self) -> Repo:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None
