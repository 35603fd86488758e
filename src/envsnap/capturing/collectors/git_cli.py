"""The git reads of the `code` collector, as plain `git` subprocesses.

A capture reads a handful of facts (top level, HEAD commit, branch) and runs a few plumbing
commands; `git` itself answers each in a few milliseconds, while importing GitPython cost more
than the whole collector. The names follow the GitPython subset the collector used, so the
collector reads the same either way: `Repo`, `repo.head`, `repo.active_branch`,
`repo.git.execute` and the error classes.

Every call is `git_command` in `git_environment`: git starts no program that the repository's
configuration, its in-tree attributes or the environment name, and writes nothing. Every output
is streamed with a byte cap and a time limit (`stream.run_streamed`), so a hostile `git` or
repository costs bounded memory and time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from envsnap.capturing.collectors.stream import Streamed, run_streamed

_DEFAULT_TIMEOUT_S = 4.0
# The most a plumbing answer (a path, a commit, a ref) may take; past it git is killed.
PLUMBING_MAX_BYTES = 1024 * 1024

# Given on the command line, these win over every configuration file, includes too. Each names
# something git would otherwise start while only reading: a file-system monitor (run by
# ls-files, diff-index and status on a repository that sets one), hooks, an external diff, a
# credential helper or password prompt, a transport (ssh, ext::). An empty diff.external fails
# to start rather than run anything. Nothing the collector runs uses the rest; it is kept off
# all the same, at no cost.
_NEUTRAL_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "diff.external=",
    "credential.helper=",
    "core.askPass=",
    "protocol.allow=never",
)
# The user's own configuration choices are kept (global config can change what git reports,
# core.excludesFile and core.autocrlf among them); every other GIT_* variable is dropped, as it
# could name a program (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND), add configuration
# (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT), write files (GIT_TRACE=path) or point git at
# another repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE).
_KEPT_GIT_VARIABLES = frozenset(
    {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_ATTR_NOSYSTEM"}
)
_FIXED_ENVIRONMENT = {
    # git's messages in English whatever the user's locale, as the collector reports them.
    "LANGUAGE": "C",
    "LC_ALL": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_PAGER": "cat",
    # No index refresh written back: the job's own git commands could meet its lock.
    "GIT_OPTIONAL_LOCKS": "0",
}
# Scopes of configuration that come with the repository rather than from the user.
_REPOSITORY_SCOPES = frozenset({"local", "worktree"})


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


def repository_dir(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding a `.git` (directory, file or link),
    on the resolved path, as git walks it; None when there is none."""
    real = Path(os.path.realpath(start))
    for directory in (real, *real.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def git_command(*args: str, config: Sequence[str] = ()) -> list[str]:
    """argv for `git ARGS` that runs no program the repository or environment names.

    `config` adds `-c` settings, such as those of `neutral_drivers`.
    """
    options = [item for setting in (*_NEUTRAL_CONFIG, *config) for item in ("-c", setting)]
    return ["git", "--no-pager", *options, *args]


def git_environment(
    *, git_dir: Path | None = None, work_tree: Path | None = None, ceiling: Path | None = None
) -> dict[str, str]:
    """This process's environment cleaned for git (see `_KEPT_GIT_VARIABLES`).

    With `git_dir` and `work_tree` git opens that repository and searches for none; with
    `ceiling` its search stops below that directory.
    """
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT_GIT_VARIABLES
    }
    env.update(_FIXED_ENVIRONMENT)
    if git_dir is not None and work_tree is not None:
        env["GIT_DIR"], env["GIT_WORK_TREE"] = str(git_dir), str(work_tree)
    if ceiling is not None:
        env["GIT_CEILING_DIRECTORIES"] = str(ceiling)
        # The ceiling bounds the search: a mount point between the start and the `.git`
        # must not end it early and make a sound repository look broken.
        env["GIT_DISCOVERY_ACROSS_FILESYSTEM"] = "1"
    return env


def run_git(
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    *,
    timeout: float = _DEFAULT_TIMEOUT_S,
    keep: int = PLUMBING_MAX_BYTES,
    max_bytes: int | None = PLUMBING_MAX_BYTES,
) -> Streamed:
    """Run a git argv from `git_command`, its output streamed and capped (see `run_streamed`)."""
    try:
        return run_streamed(
            list(argv), cwd=cwd, timeout_s=timeout, keep=keep, env=env, max_bytes=max_bytes
        )
    except FileNotFoundError:
        raise GitCommandNotFound("git executable not found on PATH") from None


def _checked(args: Sequence[str], done: Streamed) -> Streamed:
    """`done`, or GitCommandError when `git ARGS` ran out of time, wrote too much or failed."""
    argv = ["git", *args]
    if done.timed_out:
        raise GitCommandError(argv, -1, "did not finish in time")
    if done.capped:
        raise GitCommandError(argv, -1, f"wrote more than {len(done.head) // 1024} KiB; not read")
    if done.returncode != 0:
        raise GitCommandError(argv, done.returncode, done.stderr)
    return done


@dataclass(frozen=True)
class RepositoryConfig:
    """What the collector reads from `git config --list`: the remotes' URLs, and the `-c`
    settings that keep the repository's own filter and diff drivers from running."""

    remote_urls: list[tuple[str, str]] = field(default_factory=list)
    neutral_drivers: tuple[str, ...] = ()
    # Why the repository's drivers cannot all be switched off (then nothing that could run
    # one, the patch, may be read); None when they can.
    unsafe_driver: str | None = None


def parse_config_listing(raw: bytes, *, scoped: bool) -> RepositoryConfig:
    """Parse `git config --list -z` output (with `--show-scope` when `scoped`).

    A filter driver (`filter.<name>.clean/smudge/process`, chosen by .gitattributes) is a
    program git runs on file contents; a diff driver's textconv or command likewise. Each one
    the repository's own configuration defines is emptied on the command line, which git
    honours over the file (an empty filter is no filter). Drivers from the system or global
    configuration are the user's own, git-lfs's for one, and are left to run: without them a
    tracked file they filter reads as changed.
    """
    fields = raw.split(b"\0")
    step = 2 if scoped else 1
    urls: list[tuple[str, str]] = []
    drivers: set[tuple[str, str]] = set()
    for index in range(0, len(fields) - step + 1, step):
        scope = os.fsdecode(fields[index]) if scoped else "local"
        key, _, value = os.fsdecode(fields[index + step - 1]).partition("\n")
        section, _, rest = key.partition(".")
        name, _, variable = rest.rpartition(".")
        if section == "remote" and variable == "url" and name:
            urls.append((name, value))
        elif section in ("filter", "diff") and "." in rest and scope in _REPOSITORY_SCOPES:
            # A driver may be named "" (`[filter ""]`, selected by `filter=`): git runs it.
            drivers.add((section, name))
    unsafe = next((f"{s}.{n}" for s, n in sorted(drivers) if "=" in n or "\n" in n), None)
    return RepositoryConfig(urls, _neutral_settings(drivers), unsafe)


def _neutral_settings(drivers: set[tuple[str, str]]) -> tuple[str, ...]:
    settings: list[str] = []
    for section, name in sorted(drivers):
        if section == "filter":
            keys = ("process", "clean", "smudge")
            settings += [f"filter.{name}.{key}=" for key in keys]
            settings.append(f"filter.{name}.required=false")  # else an empty filter is fatal
        else:  # an empty textconv or command fails to start rather than run anything
            settings += [f"diff.{name}.textconv=", f"diff.{name}.command="]
    return tuple(settings)


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
    """Runs git commands in one directory with a cleaned environment (`git_environment`)."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.cwd = cwd
        self.env = env

    @classmethod
    def of(cls, work_tree: Path, git_dir: Path) -> Git:
        """Commands on this work tree and git directory: git searches for no repository."""
        return cls(work_tree, git_environment(git_dir=git_dir, work_tree=work_tree))

    @classmethod
    def searching(cls, directory: Path) -> Git:
        """Commands on the repository whose `.git` is in `directory`, never one above it."""
        return cls(directory, git_environment(ceiling=Path(os.path.realpath(directory)).parent))

    def run(
        self,
        *args: str,
        config: Sequence[str] = (),
        timeout: float = _DEFAULT_TIMEOUT_S,
        keep: int = PLUMBING_MAX_BYTES,
        max_bytes: int | None = PLUMBING_MAX_BYTES,
    ) -> Streamed:
        """`git ARGS`, streamed and capped; the caller reads the outcome."""
        argv = git_command(*args, config=config)
        return run_git(argv, self.cwd, self.env, timeout=timeout, keep=keep, max_bytes=max_bytes)

    def execute(
        self,
        argv: Sequence[str],
        *,
        kill_after_timeout: float | None = None,
        stdout_as_string: bool = True,
        strip_newline_in_stdout: bool = False,
        with_extended_output: bool = False,
    ) -> str | bytes:
        """stdout of `argv` (`["git", ...]`; text, or bytes when `stdout_as_string` is false).

        Raises `GitCommandError` on a non-zero exit, when the time limit passes or when the
        output passes `PLUMBING_MAX_BYTES`.
        """
        if with_extended_output:
            raise NotImplementedError("with_extended_output is not supported")
        limit = kill_after_timeout or _DEFAULT_TIMEOUT_S
        done = _checked(argv[1:], self.run(*argv[1:], timeout=limit))
        if not stdout_as_string:
            return done.head
        text = _text(done.head)
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
    """The git work tree holding `path`: the one whose `.git` is nearest above it.

    git's own search walks past a `.git` it cannot read (a garbage HEAD, say) and would answer
    for an enclosing repository; here it stops below the nearest `.git`, so a broken repository
    is reported as one. Later commands name the git directory and work tree outright.
    """

    def __init__(self, path: str | os.PathLike[str], search_parent_directories: bool = True):
        start = Path(os.path.abspath(path))
        if not start.is_dir():
            raise NoSuchPathError(str(start))
        nearest = repository_dir(start)
        if nearest is None:
            raise InvalidGitRepositoryError(f"not a git repository: {start}")
        # One call for the git directory, the top level, HEAD's commit and the branch HEAD
        # points to ("HEAD" when detached). With no readable commit it fails after printing
        # the first two.
        args: tuple[str, ...] = ("rev-parse", "--git-dir", "--show-toplevel", "HEAD^{commit}")
        args += ("--symbolic-full-name", "HEAD")
        done = run_git(git_command(*args), start, git_environment(ceiling=nearest.parent))
        if done.timed_out or done.capped:
            _checked(args, done)
        lines = _text(done.head).splitlines()
        if len(lines) < 2:
            raise InvalidGitRepositoryError(done.stderr.strip() or str(start))
        git_dir = start / lines[0]  # printed relative to `start` when not absolute
        root = _as_reached_from(start, Path(lines[1]))
        self.git_dir = str(git_dir)
        self.working_tree_dir: str | None = str(root)
        # Commands run at the top level, so the paths they print are relative to it.
        self.git = Git.of(root, git_dir)
        if done.returncode == 0 and len(lines) == 4:
            ref = None if lines[3] == "HEAD" else lines[3]
            self.head = Head(self.git, sha=lines[2], ref=ref)
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
