"""`code`: the git commit, dirty state, patch digest, untracked files, submodules and remotes."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from envsnap.capturing.collectors import git_cli as git
from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.stream import Streamed, run_streamed
from envsnap.manifest.hashing import sha256_file
from envsnap.manifest.records import CodeSection, Remote, Submodule

# The dirty-tree patch itself is kept in the manifest up to this size (code.patch); a larger
# one is recorded by digest and size only. 256 KiB holds the edits of a typical experiment
# while keeping the manifest small enough to attach to a review.
PATCH_MAX_BYTES = 256 * 1024
# At most this much of `git ls-files` output (untracked names) is read.
UNTRACKED_LIST_MAX_BYTES = 16 * 1024 * 1024
# Untracked files are hashed up to these sizes (per file, and in total per capture).
UNTRACKED_FILE_CAP_BYTES = 64 * 1024 * 1024
UNTRACKED_HASH_BUDGET_BYTES = 256 * 1024 * 1024
# Options that make the patch bytes independent of the user's git configuration (prefixes,
# rename detection, external or textconv drivers, colour), so equal trees digest equally.
_STABLE_DIFF = (
    "--binary",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--diff-algorithm=myers",
)
_SUBMODULE_STATE = {" ": "clean", "+": "modified", "-": "uninitialized", "U": "conflict"}


def _find_dot_git(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _git_call_limit(context: CaptureContext) -> float:
    return max(0.5, min(4.0, context.remaining()))


def collect(context: CaptureContext) -> CodeSection:
    try:
        repo = git.Repo(context.cwd, search_parent_directories=True)
    except git.GitCommandNotFound:
        raise CollectorUnavailable("git executable not found on PATH") from None
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        if _find_dot_git(context.cwd) is not None:
            raise RuntimeError(
                f"{_find_dot_git(context.cwd)}/.git exists but is not a readable repository "
                "(corrupt?)"
            ) from None
        raise CollectorUnavailable(f"not a git repository: {context.cwd}") from None

    with repo:
        try:
            if not repo.head.is_valid():
                _raise_no_head(repo, context)
            return _read_repo(repo, context)
        except git.GitCommandNotFound:
            raise CollectorUnavailable("git executable not found on PATH") from None


def _raise_no_head(repo: Any, context: CaptureContext) -> None:
    """HEAD resolves to no readable commit: tell a fresh repository from a damaged one."""
    try:
        target = _git(repo, context, "rev-parse", "-q", "--verify", "HEAD").strip()
    except git.GitCommandError as exc:
        # Exit 1 with no message is "HEAD names no commit"; anything else (git refusing a
        # repository owned by another user, say) is a failure to report, not a fresh repo.
        if exc.status != 1 or str(exc.stderr or "").strip():
            raise RuntimeError(
                f"git cannot read this repository: {_first_line(exc.stderr)}"
            ) from None
        target = ""
    if target:  # the ref names a commit whose object is missing or unreadable
        raise RuntimeError(
            f"HEAD points to {target[:12]}, which cannot be read (corrupt repository?)"
        )
    raise CollectorUnavailable("git repository has no commits yet")


def _git(repo: Any, context: CaptureContext, *args: str, raw: bool = False) -> Any:
    return repo.git.execute(
        ["git", *args],
        kill_after_timeout=_git_call_limit(context),
        stdout_as_string=not raw,
        strip_newline_in_stdout=False,
        with_extended_output=False,
    )


def _read_repo(repo: Any, context: CaptureContext) -> CodeSection:
    unknown: dict[str, str] = {}
    root = Path(repo.working_tree_dir or context.cwd)
    commit = repo.head.commit.hexsha
    detached = repo.head.is_detached
    branch = None if detached else repo.active_branch.name

    # The reads are independent: the untracked names and the remotes are read beside the
    # patch, the slowest of them (git stats every tracked file for it).
    untracked_names = _in_background(lambda: _untracked(root, context))
    remote_list = _in_background(lambda: _remotes(repo, context))
    # Plumbing, not `git diff`: the porcelain refreshes and rewrites .git/index, which could
    # race the job's own git commands; diff-index only reads (and ignores diff.* config).
    # Streamed: a large binary change is hashed as it arrives, never held whole.
    patch = _stream(root, context, "diff-index", "-p", "HEAD", *_STABLE_DIFF, keep=PATCH_MAX_BYTES)
    patch_ok = patch.returncode == 0 and not patch.timed_out
    if not patch_ok:
        unknown["diff_sha256"] = unknown["diff_bytes"] = _stream_problem(
            patch, "git diff-index", "patch"
        )
    untracked, problem = untracked_names()
    if problem is not None:
        unknown["untracked_count"] = unknown["untracked_digest"] = problem
    untracked_digest = _untracked_digest(root, untracked, unknown) if untracked else None
    submodules = _submodules(repo, root, context, unknown)
    remotes, problem = remote_list()
    if problem is not None:
        unknown["remotes"] = problem

    return CodeSection(
        repo_root=str(root),
        commit=commit,
        branch=branch,
        detached=detached,
        dirty=(bool(patch.size) or bool(untracked)) if patch_ok and untracked is not None else None,
        diff_sha256=patch.sha256 if patch_ok and patch.size else None,
        diff_bytes=patch.size if patch_ok else None,
        patch=_patch_text(patch, context, unknown) if patch_ok and patch.size else None,
        untracked_count=len(untracked) if untracked is not None else None,
        untracked_digest=untracked_digest,
        submodules=sorted(submodules, key=lambda s: s.path),
        remotes=sorted(remotes, key=lambda r: (r.name, r.url)),
        unknown=unknown,
    )


T = TypeVar("T")


def _in_background(task: Callable[[], T]) -> Callable[[], T]:
    """Start `task` in a thread; the returned function waits for it and gives its result (or
    raises what it raised). Every git call has its own time limit, so the wait is bounded."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, task()))
        except BaseException as exc:
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name="envsnap-code-read", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        succeeded, value = outcome[0]
        if not succeeded:
            raise value
        return cast(T, value)

    return result


def _untracked(root: Path, context: CaptureContext) -> tuple[list[str] | None, str | None]:
    """Untracked, non-ignored file names, sorted; or None and why they could not be read."""
    names = _stream(
        root,
        context,
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        keep=UNTRACKED_LIST_MAX_BYTES,
    )
    if names.complete and names.returncode == 0 and not names.timed_out:
        return sorted(os.fsdecode(p) for p in names.head.split(b"\0") if p), None
    return None, _stream_problem(names, "git ls-files", "untracked file names")


def _submodules(
    repo: Any, root: Path, context: CaptureContext, unknown: dict[str, str]
) -> list[Submodule]:
    if not (root / ".gitmodules").exists():
        return []
    try:
        status: str = _git(repo, context, "submodule", "status", "--recursive")
    except git.GitCommandError as exc:
        unknown["submodules"] = f"git submodule status failed: {_first_line(exc.stderr)}"
        return []
    return _parse_submodules(status)


def _remotes(repo: Any, context: CaptureContext) -> tuple[list[Remote], str | None]:
    """The remotes with credentials removed; or what is known and why the rest is not."""
    try:
        listing: str = _git(repo, context, "config", "--get-regexp", r"^remote\..*\.url$")
    except git.GitCommandError as exc:
        if exc.status == 1:  # 1 means "no remotes configured"
            return [], None
        return [], f"git config failed: {_first_line(exc.stderr)}"
    remotes = []
    for line in listing.splitlines():
        key, _, url = line.partition(" ")
        name = key[len("remote.") : -len(".url")]
        remotes.append(Remote(name=name, url=context.redactor.redact_url(url.strip())))
    return remotes, None


def _stream(root: Path, context: CaptureContext, *args: str, keep: int) -> Streamed:
    return run_streamed(
        ["git", *args], cwd=root, timeout_s=_git_call_limit(context), keep=keep, env=None
    )


def _stream_problem(result: Streamed, command: str, what: str) -> str:
    if result.timed_out:
        return f"{command} did not finish in time"
    if result.returncode != 0:
        return f"{command} failed: {_first_line(result.stderr)}"
    return f"more than {len(result.head) // (1024 * 1024)} MiB of {what}; not read"


def _patch_text(patch: Streamed, context: CaptureContext, unknown: dict[str, str]) -> str | None:
    """The patch as text when it is small and UTF-8, secrets redacted; else None, with why."""
    if not patch.complete or patch.size > PATCH_MAX_BYTES:
        unknown["patch"] = (
            f"patch of {patch.size} bytes is over the {PATCH_MAX_BYTES // 1024} KiB kept in "
            "the manifest; diff_sha256 and diff_bytes identify it"
        )
        return None
    try:
        text = patch.head.decode("utf-8")
    except UnicodeDecodeError:
        unknown["patch"] = "the patch is not UTF-8 text; diff_sha256 and diff_bytes identify it"
        return None
    clean = context.redactor.redact_text(text)
    if clean != text:
        unknown["patch"] = "secrets in the patch were redacted: it no longer applies as is"
    return clean


def _first_line(text: object) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0].strip() if lines else "no message"


def _untracked_digest(root: Path, paths: list[str], unknown: dict[str, str]) -> str:
    """sha256 over (path, content digest) of each untracked file.

    Content is hashed up to a byte budget, so a forgotten multi-GB file cannot eat the
    capture's time; past it, or for one file over the per-file cap, the size stands in for
    the content and `unknown` says how many files were digested that way.
    """
    outer = hashlib.sha256()
    unreadable = by_size = 0
    budget = UNTRACKED_HASH_BUDGET_BYTES
    for relative in paths:
        path = root / relative
        try:
            if path.is_symlink():
                content = "link:" + os.readlink(path)
            elif relative.endswith("/"):  # git lists a nested repository as one directory
                content = "directory"
            else:
                size = path.stat().st_size
                if size > min(budget, UNTRACKED_FILE_CAP_BYTES):
                    by_size += 1
                    content = f"size:{size}"
                else:
                    budget -= size
                    content = sha256_file(path)
        except OSError as exc:
            unreadable += 1
            content = f"unreadable:{exc.errno}"
        entry = f"{relative}\0{content}\n".encode("utf-8", "surrogateescape")
        outer.update(entry)
    problems = []
    if unreadable:
        problems.append(f"{unreadable} untracked file(s) could not be read")
    if by_size:
        problems.append(f"{by_size} large untracked file(s) digested by size only")
    if problems:
        unknown["untracked_digest"] = "; ".join(problems)
    return outer.hexdigest()


def _parse_submodules(status: str) -> list[Submodule]:
    submodules = []
    for line in status.splitlines():
        if len(line) < 42:
            continue
        state = _SUBMODULE_STATE.get(line[0], "unknown")
        commit, _, rest = line[1:].partition(" ")
        path = rest.split(" (", 1)[0].strip()
        submodules.append(Submodule(path=path, commit=commit, state=state))
    return submodules


COLLECTOR = Collector(name="code", collect=collect, timeout_s=8.0, description="git state")
