"""The `code` collector against real git repositories built in temporary directories."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from envsnap.capturing.collectors.code import collect
from envsnap.capturing.run import run_collectors
from envsnap.manifest.records import CodeSection
from tests import helpers
from tests.helpers import capture_context, git, reads_blocked_by_chmod

MakeRepo = Callable[..., Path]


def code_of(cwd: Path) -> CodeSection:
    return collect(capture_context(cwd))


def record_of(cwd: Path) -> tuple[CodeSection | None, str, str | None]:
    sections, records = run_collectors(["code"], capture_context(cwd))
    section = sections["code"]
    assert section is None or isinstance(section, CodeSection)
    return section, records["code"].status, records["code"].reason


def test_clean_repository(make_repo: MakeRepo) -> None:
    repo = make_repo()
    code = code_of(repo)
    assert code.commit == git(repo, "rev-parse", "HEAD").strip()
    assert code.branch == "main"
    assert code.detached is False
    assert code.dirty is False
    assert code.diff_sha256 is None and code.diff_bytes == 0
    assert code.untracked_count == 0 and code.untracked_digest is None
    assert Path(code.repo_root) == repo.resolve()
    assert code.unknown == {}


def test_found_from_a_subdirectory(make_repo: MakeRepo) -> None:
    repo = make_repo()
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    assert Path(code_of(sub).repo_root) == repo.resolve()


@pytest.mark.slow
def test_dirty_tracked_change_is_digested_binary_safe(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("print('changed')\n")
    (repo / "weights.bin").write_bytes(bytes(range(256)))
    git(repo, "add", "weights.bin")
    code = code_of(repo)
    assert code.dirty is True
    patch = subprocess.run(
        ["git", "diff", "HEAD", "--binary", "--no-color", "--no-ext-diff", "--no-textconv"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    assert b"GIT binary patch" in patch
    assert code.diff_bytes == len(patch)
    assert code.diff_sha256 == hashlib.sha256(patch).hexdigest()


def test_patch_digest_ignores_user_diff_configuration(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("print('changed')\n")
    before = code_of(repo).diff_sha256
    git(repo, "config", "diff.noprefix", "true")
    git(repo, "config", "diff.mnemonicPrefix", "true")
    git(repo, "config", "color.diff", "always")
    assert code_of(repo).diff_sha256 == before


def test_different_edits_give_different_digests(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("print('a')\n")
    first = code_of(repo).diff_sha256
    (repo / "train.py").write_text("print('b')\n")
    assert code_of(repo).diff_sha256 not in (None, first)


def test_untracked_files_are_counted_and_digested_but_ignored_ones_are_not(
    make_repo: MakeRepo,
) -> None:
    repo = make_repo()
    (repo / "notes.txt").write_text("one\n")
    (repo / "run.log").write_text("ignored by .gitignore\n")
    code = code_of(repo)
    assert code.dirty is False  # dirty means tracked changes; untracked files count apart
    assert code.diff_sha256 is None
    assert code.untracked_count == 1
    first = code.untracked_digest
    (repo / "run.log").write_text("still ignored, different\n")
    assert code_of(repo).untracked_digest == first
    (repo / "notes.txt").write_text("two\n")
    assert code_of(repo).untracked_digest not in (None, first)


def test_untracked_nested_repository_is_not_reported_unreadable(make_repo: MakeRepo) -> None:
    repo = make_repo()
    nested = repo / "vendor"
    nested.mkdir()
    git(nested, "init", "-q")
    code = code_of(repo)
    assert code.untracked_count == 1
    assert code.unknown == {}


def test_detached_head(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("print('second')\n")
    git(repo, "commit", "-qam", "second")
    first = git(repo, "rev-parse", "HEAD~1").strip()
    git(repo, "checkout", "-q", "--detach", first)
    code = code_of(repo)
    assert code.detached is True
    assert code.branch is None
    assert code.commit == first
    assert code.dirty is False


def test_submodule_commit_and_state(make_repo: MakeRepo) -> None:
    library = make_repo("library")
    library_commit = git(library, "rev-parse", "HEAD").strip()
    repo = make_repo("app")
    git(repo, "submodule", "add", "-q", str(library), "third_party/library")
    git(repo, "commit", "-qm", "add submodule")
    code = code_of(repo)
    assert [(s.path, s.commit, s.state) for s in code.submodules] == [
        ("third_party/library", library_commit, "clean")
    ]
    assert code.dirty is False
    # Move the submodule to a new commit without recording it in the parent.
    checkout = repo / "third_party" / "library"
    (checkout / "train.py").write_text("print('library v2')\n")
    git(checkout, "commit", "-qam", "v2")
    moved = code_of(repo)
    assert moved.submodules[0].state == "modified"
    assert moved.submodules[0].commit == git(checkout, "rev-parse", "HEAD").strip()
    assert moved.dirty is True


def test_remote_credentials_are_stripped(make_repo: MakeRepo) -> None:
    repo = make_repo()
    git(repo, "remote", "add", "origin", "https://alice:s3cr3t-pw@github.com/org/repo.git")
    git(repo, "remote", "add", "backup", "ssh://git@example.com/org/repo.git")
    git(repo, "remote", "add", "scp", "bob:hunter2pw@example.com:org/repo.git")
    urls = {r.name: r.url for r in code_of(repo).remotes}
    assert urls == {
        "backup": "ssh://git@example.com/org/repo.git",
        "origin": "https://<redacted>@github.com/org/repo.git",
        "scp": "<redacted>@example.com:org/repo.git",
    }


def test_not_a_repository_is_skipped(tmp_path: Path) -> None:
    section, status, reason = record_of(tmp_path)
    assert (section, status) == (None, "skipped")
    assert reason is not None and "not a git repository" in reason


def test_repository_without_commits_is_skipped(make_repo: MakeRepo) -> None:
    repo = make_repo(commit=False)
    section, status, reason = record_of(repo)
    assert (section, status) == (None, "skipped")
    assert reason == "git repository has no commits yet"


@pytest.mark.parametrize(
    "damage",
    ["head_garbage", "head_missing", "objects_missing", "git_file_empty"],
)
def test_corrupt_repository_is_an_error_not_a_crash(make_repo: MakeRepo, damage: str) -> None:
    repo = make_repo()
    dot_git = repo / ".git"
    if damage == "head_garbage":
        (dot_git / "HEAD").write_text("garbage\n")
    elif damage == "head_missing":
        (dot_git / "HEAD").unlink()
    elif damage == "objects_missing":
        for directory in (dot_git / "objects").glob("??"):
            shutil.rmtree(directory)
    else:
        shutil.rmtree(dot_git)
        dot_git.write_text("")
    section, status, reason = record_of(repo)
    assert (section, status) == (None, "error")
    assert reason is not None
    # The path itself names the test ("corrupt"): only the words around it count.
    words = reason.replace(str(repo.resolve()), "<repo>").replace(str(repo), "<repo>")
    assert "cannot read it" in words or "cannot be read" in words, words


@pytest.mark.slow
def test_git_missing_from_path_is_skipped(make_repo: MakeRepo, no_git_env: dict[str, str]) -> None:
    """A fresh interpreter whose PATH holds no git binary."""
    import json
    import sys

    repo = make_repo()
    script = (
        "import json, sys\n"
        "from envsnap.capturing.run import run_collectors\n"
        "from envsnap.manifest.records import plain\n"
        "from tests.helpers import capture_context\n"
        "from pathlib import Path\n"
        "_, records = run_collectors(['code'], capture_context(Path.cwd()))\n"
        "print(json.dumps(plain(records['code'])))\n"
    )
    root = helpers.REPO_ROOT
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=repo,
        env={**no_git_env, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    record = json.loads(done.stdout)
    assert record["status"] == "skipped"
    assert "git executable not found" in record["reason"]


def test_unreadable_untracked_file_is_recorded(make_repo: MakeRepo) -> None:
    repo = make_repo()
    if not reads_blocked_by_chmod(repo):
        pytest.skip("running as root: chmod 000 does not stop reads, so nothing is unreadable")
    secret = repo / "private.txt"
    secret.write_text("x")
    secret.chmod(0)
    try:
        code = code_of(repo)
    finally:
        secret.chmod(0o600)
    assert code.untracked_count == 1
    assert code.untracked_digest is not None
    assert code.unknown == {"untracked_digest": "1 untracked file(s) could not be read"}


def test_huge_untracked_file_is_digested_by_size(make_repo: MakeRepo) -> None:
    repo = make_repo()
    big = repo / "dataset.bin"
    with open(big, "wb") as handle:  # sparse: large on paper, nothing to read from disk
        handle.truncate(65 * 1024 * 1024)
    code = code_of(repo)
    assert code.untracked_count == 1
    assert code.unknown == {"untracked_digest": "1 large untracked file(s) digested by size only"}
    with open(big, "r+b") as handle:
        handle.truncate(66 * 1024 * 1024)
    assert code_of(repo).untracked_digest != code.untracked_digest


def test_untracked_symlink_with_undecodable_target(make_repo: MakeRepo) -> None:
    import os

    repo = make_repo()
    (repo / "link").symlink_to(os.fsdecode(b"target-\xff"))
    code = code_of(repo)
    assert code.untracked_count == 1 and code.unknown == {}


@pytest.mark.slow
def test_repository_git_refuses_to_read_is_an_error_not_an_empty_repo(
    make_repo, run_cli_process
) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() != 0:
        pytest.skip("needs root to hand the repository to another user")
    repo = make_repo()
    subprocess.run(["chown", "-R", "12345:12345", str(repo)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    result = run_cli_process("capture", "--only", "code", cwd=repo, env=env)
    record = json.loads(result.out)["collectors"]["code"]
    assert record["status"] == "error", record
    assert "no commits" not in (record["reason"] or "")


@pytest.mark.slow
def test_capture_leaves_the_git_index_untouched(make_repo, run_cli_process) -> None:  # type: ignore[no-untyped-def]
    """Reading must not rewrite .git/index (the job's own git commands could hit its lock)."""
    repo = make_repo()
    index = repo / ".git" / "index"
    os.utime(repo / "train.py")  # stat-dirty, same content: porcelain diff would refresh
    before = (index.stat().st_mtime_ns, index.read_bytes())
    result = run_cli_process("capture", "--only", "code", cwd=repo)
    assert json.loads(result.out)["code"]["dirty"] is False
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def _config_listing(repo: Path, global_config: Path, *options: str) -> bytes:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(global_config), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        ["git", "config", "--list", *options, "-z"],
        cwd=repo,
        env=env,
        capture_output=True,
        check=True,
    ).stdout


def test_only_the_repositorys_own_drivers_are_switched_off(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    from envsnap.capturing.collectors.git_cli import parse_config_listing

    repo = make_repo()
    user_config = tmp_path / "user.gitconfig"
    user_config.write_text('[filter "lfs"]\n\tprocess = git-lfs filter-process\n')
    git(repo, "config", "filter.evil.clean", "touch /tmp/evil")
    git(repo, "config", "diff.pics.textconv", "exiftool")
    git(repo, "remote", "add", "my.fork", "https://example.com/a.git")
    scoped = parse_config_listing(_config_listing(repo, user_config, "--show-scope"), scoped=True)
    assert scoped.remote_urls == [("my.fork", "https://example.com/a.git")]
    assert "filter.evil.process=" in scoped.neutral_drivers
    assert "filter.evil.required=false" in scoped.neutral_drivers
    assert "diff.pics.textconv=" in scoped.neutral_drivers
    assert not any(s.startswith("filter.lfs.") for s in scoped.neutral_drivers)  # the user's
    # git before 2.26 cannot say where a setting comes from: then every driver is switched off.
    unscoped = parse_config_listing(_config_listing(repo, user_config), scoped=False)
    assert "filter.lfs.process=" in unscoped.neutral_drivers
    assert unscoped.remote_urls == scoped.remote_urls


def test_untracked_only_tree_is_not_dirty(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "scratch.py").write_text("print('not committed')\n")
    code = code_of(repo)
    assert (code.dirty, code.diff_bytes, code.diff_sha256) == (False, 0, None)
    assert code.untracked_count == 1 and code.untracked_digest is not None
    (repo / "train.py").write_text("print('edited')\n")
    edited = code_of(repo)
    assert edited.dirty is True and (edited.diff_bytes or 0) > 0
    assert edited.untracked_digest == code.untracked_digest


def test_untracked_python_files_are_counted_apart_from_logs(make_repo: MakeRepo) -> None:
    repo = make_repo()
    (repo / "notes.txt").write_text("step 1\n")
    (repo / "outputs").mkdir()
    (repo / "outputs" / "metrics.json").write_text("{}\n")
    code = code_of(repo)
    assert (code.untracked_count, code.untracked_python) == (2, 0)
    (repo / "helpers.py").write_text("SCALE = 2\n")
    code = code_of(repo)
    assert (code.untracked_count, code.untracked_python) == (3, 1)
