"""`code`: the git commit, dirty state, patch digest, untracked files, submodules and remotes."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from envsnap.capturing.collectors import git_cli
from envsnap.capturing.collectors import git_cli as git
from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.stream import Streamed, run_streamed
from envsnap.manifest.hashing import sha256_file
from envsnap.manifest.records import CodeSection, Remote, Submodule

# The dirty-tree patch itself is kept in the manifest up to this size (code.patch); a larger
# one is recorded by digest and size only. 256 KiB holds the edits of a typical experiment
# while keeping the manifest small enough to attach to a review.
PATCH_MAX_BYTES = 256 * 1024
# Past this much output the patch is not digested: git is stopped, the patch recorded unknown.
PATCH_DIGEST_MAX_BYTES = 1024 * 1024 * 1024
# Untracked files the job could import: what can change its results without a tracked edit.
PYTHON_SUFFIXES = (".py", ".pyx", ".pxd", ".pyi", ".so", ".pth")
# At most this much of `git ls-files` output (untracked names) is read.
UNTRACKED_LIST_MAX_BYTES = 16 * 1024 * 1024
# At most this much of the configuration listing and of `git submodule status` is read.
CONFIG_MAX_BYTES = 4 * 1024 * 1024
SUBMODULE_STATUS_MAX_BYTES = 4 * 1024 * 1024
# `git config` exits 129 on an option it does not know: --show-scope came in git 2.26.
_USAGE_ERROR = 129
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


def _git_call_limit(context: CaptureContext) -> float:
    return max(0.5, min(4.0, context.remaining()))


def collect(context: CaptureContext) -> CodeSection:
    try:
        repo = git.Repo(context.cwd, search_parent_directories=True)
    except git.GitCommandNotFound:
        raise CollectorUnavailable("git executable not found on PATH") from None
    except git.NoSuchPathError:
        raise CollectorUnavailable(f"not a git repository: {context.cwd}") from None
    except git.InvalidGitRepositoryError as exc:
        nearest = git_cli.repository_dir(context.cwd)
        if nearest is not None:  # broken: never read as the repository around it
            raise RuntimeError(
                f"{nearest / '.git'} exists but git cannot read it: {_unreadable_reason(exc)}"
            ) from None
        raise CollectorUnavailable(f"not a git repository: {context.cwd}") from None

    with repo:
        try:
            if not repo.head.is_valid():
                _raise_no_head(repo, context)
            return _read_repo(repo, context)
        except git.GitCommandNotFound:
            raise CollectorUnavailable("git executable not found on PATH") from None


def _unreadable_reason(error: Exception) -> str:
    """git's complaint about a `.git` it would not open, in a few words."""
    lines = str(error).strip().splitlines()
    complaint = next((line for line in lines if line.startswith("fatal:")), _first_line(error))
    complaint = complaint.removeprefix("fatal:").strip()
    if complaint.startswith("not a git repository"):  # what git says of a garbage HEAD
        return "git does not recognise it as a repository (corrupt?)"
    return complaint


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
    tree = git_cli.Git.of(root, Path(repo.git_dir))
    commit = repo.head.commit.hexsha
    detached = repo.head.is_detached
    branch = None if detached else repo.active_branch.name

    # The untracked names are read beside the rest; the patch, the slowest read (git stats
    # every tracked file for it), needs the configuration first, to switch its filters off.
    untracked_names = _in_background(lambda: _untracked(tree, context))
    config, config_problem = _repository_config(tree, context)
    submodules = _submodules(tree, root, context, unknown)
    submodule_drivers = _submodule_drivers(root, context, submodules, unknown)
    patch = _patch(tree, context, config, config_problem, submodule_drivers, unknown)
    untracked, problem = untracked_names()
    if problem is not None:
        unknown["untracked_count"] = unknown["untracked_digest"] = problem
    untracked_digest = _untracked_digest(root, untracked, unknown) if untracked else None
    remotes = _remotes(config, context)
    if config_problem is not None:
        unknown["remotes"] = config_problem

    return CodeSection(
        repo_root=str(root),
        commit=commit,
        branch=branch,
        detached=detached,
        # Tracked changes only, as MLflow's and W&B's dirty flags mean; untracked files are
        # recorded apart (untracked_count, untracked_digest) and diffed as their own rule.
        dirty=bool(patch.size) if patch is not None else None,
        diff_sha256=patch.sha256 if patch is not None and patch.size else None,
        diff_bytes=patch.size if patch is not None else None,
        patch=_patch_text(patch, context, unknown) if patch is not None and patch.size else None,
        untracked_count=len(untracked) if untracked is not None else None,
        untracked_digest=untracked_digest,
        untracked_python=(
            sum(1 for path in untracked if path.endswith(PYTHON_SUFFIXES))
            if untracked is not None
            else None
        ),
        submodules=sorted(submodules or [], key=lambda s: s.path),
        remotes=sorted(remotes, key=lambda r: (r.name, r.url)),
        unknown=unknown,
    )


def _repository_config(
    tree: git_cli.Git, context: CaptureContext
) -> tuple[git_cli.RepositoryConfig | None, str | None]:
    """The configuration's remotes and driver names; or None and why it could not be read.

    `git config` runs nothing the configuration names, so it is safe to read first.
    """
    args = ("config", "--list", "--show-scope", "-z")
    listing = _stream(tree, context, *args, keep=CONFIG_MAX_BYTES, max_bytes=CONFIG_MAX_BYTES)
    scoped = True
    if listing.returncode == _USAGE_ERROR and not listing.timed_out:
        # Without scopes every driver counts as the repository's: all are switched off.
        listing = _stream(
            tree, context, *args[:2], "-z", keep=CONFIG_MAX_BYTES, max_bytes=CONFIG_MAX_BYTES
        )
        scoped = False
    if listing.returncode == 0 and listing.complete:
        return git_cli.parse_config_listing(listing.head, scoped=scoped), None
    return None, _stream_problem(listing, "git config", "configuration", CONFIG_MAX_BYTES)


def _submodule_drivers(
    root: Path, context: CaptureContext, submodules: list[Submodule] | None, unknown: dict[str, str]
) -> tuple[str, ...] | None:
    """The `-c` settings that switch off the drivers of every checked-out submodule, or None
    when not all are known (then the patch does not look inside submodules).

    To see whether a submodule has changes, diff-index runs `git status` in it, under the
    submodule's own configuration; the settings reach that git. A nested repository that
    `submodule status` does not list (no .gitmodules entry) is never looked inside.
    """
    if submodules is None:  # none listed, or the list unreadable
        if "submodules" in unknown:
            unknown["submodules"] += "; changes inside submodules not read"
        return None
    checked_out = [s.path for s in submodules if s.state != "uninitialized"]
    reads = {
        path: _in_background(
            partial(_repository_config, git_cli.Git.searching(root / path), context)
        )
        for path in checked_out
    }
    settings: list[str] = []
    for path, read in reads.items():
        config, problem = read()
        if config is not None and config.unsafe_driver is not None:
            problem = f"it defines {config.unsafe_driver}, which git cannot skip"
        if config is None or problem is not None:
            unknown["submodules"] = f"changes inside submodule {path} not read: {problem}"
            return None
        settings += config.neutral_drivers
    return tuple(settings)


def _patch(
    tree: git_cli.Git,
    context: CaptureContext,
    config: git_cli.RepositoryConfig | None,
    config_problem: str | None,
    submodule_drivers: tuple[str, ...] | None,
    unknown: dict[str, str],
) -> Streamed | None:
    """The dirty-tree patch against HEAD, streamed; None (and why, in `unknown`) when it could
    not be read whole, or not without running a program the repository names."""
    if config is None or config.unsafe_driver is not None:
        why = (
            f"the filters the repository names are unknown ({config_problem})"
            if config is None
            else f"the repository defines {config.unsafe_driver}, which git cannot skip"
        )
        unknown["diff_sha256"] = unknown["diff_bytes"] = f"patch not read: {why}"
        return None
    drivers = config.neutral_drivers + (submodule_drivers or ())
    # A submodule whose drivers are unknown is compared by commit only.
    inside = () if submodule_drivers is not None else ("--ignore-submodules=dirty",)
    # Plumbing, not `git diff`: the porcelain refreshes and rewrites .git/index, which could
    # race the job's own git commands; diff-index only reads (and ignores diff.* config).
    # Streamed: a large binary change is hashed as it arrives, never held whole.
    patch = _stream(
        tree,
        context,
        "diff-index",
        "-p",
        "HEAD",
        *_STABLE_DIFF,
        *inside,
        keep=PATCH_MAX_BYTES,
        max_bytes=PATCH_DIGEST_MAX_BYTES,
        config=drivers,
    )
    if patch.returncode == 0 and not patch.timed_out and not patch.capped:
        return patch
    unknown["diff_sha256"] = unknown["diff_bytes"] = _stream_problem(
        patch, "git diff-index", "patch", PATCH_DIGEST_MAX_BYTES
    )
    return None


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


def _untracked(tree: git_cli.Git, context: CaptureContext) -> tuple[list[str] | None, str | None]:
    """Untracked, non-ignored file names, sorted; or None and why they could not be read."""
    names = _stream(
        tree,
        context,
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        keep=UNTRACKED_LIST_MAX_BYTES,
        max_bytes=UNTRACKED_LIST_MAX_BYTES,
    )
    if names.complete and names.returncode == 0 and not names.timed_out:
        return sorted(os.fsdecode(p) for p in names.head.split(b"\0") if p), None
    return None, _stream_problem(
        names, "git ls-files", "untracked file names", UNTRACKED_LIST_MAX_BYTES
    )


def _submodules(
    tree: git_cli.Git, root: Path, context: CaptureContext, unknown: dict[str, str]
) -> list[Submodule] | None:
    """The submodules, nested ones too; None when they could not be read (`unknown` says why).

    `submodule status` runs no filter: it compares commits only, and the neutral settings
    reach the git it starts in each submodule. Without .gitmodules there are none to list.
    """
    if not (root / ".gitmodules").exists():
        return None
    status = _stream(
        tree,
        context,
        "submodule",
        "status",
        "--recursive",
        keep=SUBMODULE_STATUS_MAX_BYTES,
        max_bytes=SUBMODULE_STATUS_MAX_BYTES,
    )
    if status.returncode != 0 or not status.complete or status.timed_out:
        unknown["submodules"] = _stream_problem(
            status, "git submodule status", "submodule status", SUBMODULE_STATUS_MAX_BYTES
        )
        return None
    return _parse_submodules(os.fsdecode(status.head))


def _remotes(config: git_cli.RepositoryConfig | None, context: CaptureContext) -> list[Remote]:
    """The remotes with credentials removed."""
    urls = config.remote_urls if config is not None else []
    return [Remote(name=name, url=context.redactor.redact_url(url.strip())) for name, url in urls]


def _stream(
    tree: git_cli.Git,
    context: CaptureContext,
    *args: str,
    keep: int,
    max_bytes: int,
    config: tuple[str, ...] = (),
) -> Streamed:
    """`git ARGS` in the work tree, its configuration's programs off, output capped."""
    return run_streamed(
        git_cli.git_command(*args, config=config),
        cwd=tree.cwd,
        env=tree.env,
        timeout_s=_git_call_limit(context),
        keep=keep,
        max_bytes=max_bytes,
    )


def _stream_problem(result: Streamed, command: str, what: str, cap: int) -> str:
    if result.timed_out:
        return f"{command} did not finish in time"
    if result.capped or (result.returncode == 0 and not result.complete):
        return f"more than {_in_units(cap)} of {what}; not read"
    return f"{command} failed: {_first_line(result.stderr)}"


def _in_units(size: int) -> str:
    gib, mib = size / 1024**3, size / 1024**2
    return f"{gib:g} GiB" if gib >= 1 else f"{mib:g} MiB"


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
