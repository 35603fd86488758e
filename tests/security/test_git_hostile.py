"""`envsnap capture` in a hostile repository: git runs nothing the repository or the
environment names, a broken `.git` is recorded as broken, and a runaway `git` costs bounded
memory and time.

Each case builds a real repository with real git in a temporary directory and runs the real
CLI (`python -m envsnap capture`) in it as a subprocess. Every program the repository names
writes a marker file when it runs; none may exist afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git

MakeRepo = Callable[..., Path]
# Far above what a capture needs (about 30 MiB), far below what an unread endless output costs.
RSS_LIMIT_MIB = 300


def _program(directory: Path, name: str, markers: Path, body: str = "cat >/dev/null") -> str:
    """A shell script that leaves `markers/name` when run; its path."""
    script = directory / f"evil-{name}"
    script.write_text(f'#!/bin/sh\ntouch "{markers / name}"\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def _capture(
    repo: Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> dict[str, Any]:
    out = repo.parent / "manifest.json"
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "--only", "code", "-o", str(out)],
        cwd=cwd or repo,
        env=env if env is not None else dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), done.stderr
    manifest: dict[str, Any] = json.loads(out.read_text())
    return manifest


def _make_stat_dirty(*paths: Path) -> None:
    """Same content, other mtime: git must read the file again, through its filter."""
    for path in paths:
        os.utime(path, (946684800, 946684800))


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    directory = tmp_path / "markers"
    directory.mkdir()
    return directory


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    directory = tmp_path / "tools"
    directory.mkdir()
    return directory


def _hostile_repository(make_repo: MakeRepo, tools: Path, markers: Path) -> Path:
    """A repository whose configuration names a program at every place git could run one."""
    repo = make_repo()
    (repo / "data.txt").write_text("rows\n")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "data")
    hooks = tools / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit"):
        (hooks / hook).symlink_to(_program(tools, f"hook-{hook}", markers))
    settings = {
        "core.fsmonitor": _program(tools, "fsmonitor", markers),
        "filter.evil.clean": _program(tools, "clean", markers),
        "filter.evil.smudge": _program(tools, "smudge", markers),
        "filter.evil.process": _program(tools, "process", markers),
        "filter.evil.required": "true",
        "diff.evil.textconv": _program(tools, "textconv", markers),
        "diff.evil.command": _program(tools, "diff-command", markers),
        "diff.external": _program(tools, "diff-external", markers),
        "core.hooksPath": str(hooks),
        "credential.helper": _program(tools, "credential", markers),
        "core.pager": _program(tools, "pager", markers),
        "pager.diff-index": _program(tools, "pager-diff-index", markers),
        "core.askPass": _program(tools, "askpass", markers),
        "core.sshCommand": _program(tools, "ssh", markers),
    }
    for key, value in settings.items():
        git(repo, "config", key, value)
    return repo


def _assert_read_correctly(manifest: dict[str, Any], repo: Path, markers: Path) -> None:
    assert sorted(p.name for p in markers.iterdir()) == []
    assert manifest["collectors"]["code"]["status"] == "ok", manifest["collectors"]["code"]
    code = manifest["code"]
    assert code["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert code["dirty"] is True
    assert code["patch"] is not None and "+lr = 0.5" in code["patch"]
    # The stat-dirty file is unchanged: without its filter git still finds equal content.
    assert "data.txt" not in code["patch"]


def test_a_hostile_repository_configuration_runs_nothing(
    make_repo: MakeRepo, tools: Path, markers: Path
) -> None:
    repo = _hostile_repository(make_repo, tools, markers)
    (repo / "train.py").write_text("lr = 0.5\n")
    _make_stat_dirty(repo / "data.txt", repo / ".gitattributes")
    manifest = _capture(repo)
    _assert_read_correctly(manifest, repo, markers)
    assert manifest["code"]["unknown"] == {}


def test_a_driver_named_by_the_empty_string_runs_nothing(
    make_repo: MakeRepo, tools: Path, markers: Path
) -> None:
    # `filter=` selects the driver `[filter ""]`, which git runs like any other.
    repo = make_repo()
    (repo / "data.txt").write_text("rows\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "data")
    (repo / ".gitattributes").write_text("* filter= diff=\n")
    git(repo, "config", "filter..clean", _program(tools, "clean", markers))
    git(repo, "config", "filter..process", _program(tools, "process", markers))
    git(repo, "config", "diff..textconv", _program(tools, "textconv", markers))
    (repo / "train.py").write_text("lr = 0.5\n")
    (repo / "data.txt").write_text("rows changed\n")
    manifest = _capture(repo)
    assert sorted(p.name for p in markers.iterdir()) == []
    assert manifest["code"]["dirty"] is True
    assert "rows changed" in manifest["code"]["patch"]


def test_configuration_pulled_in_by_include_runs_nothing(
    make_repo: MakeRepo, tools: Path, markers: Path
) -> None:
    repo = make_repo()
    (repo / ".gitattributes").write_text("*.txt filter=included\n")
    (repo / "data.txt").write_text("rows\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "data")
    included = tools / "included.cfg"
    included.write_text(
        f"[core]\n\tfsmonitor = {_program(tools, 'fsmonitor', markers)}\n"
        f'[filter "included"]\n\tclean = {_program(tools, "clean", markers)}\n'
        "\trequired = true\n"
    )
    git(repo, "config", "include.path", str(included))
    git(repo, "config", f"includeIf.gitdir:{repo}/.path", str(included))
    (repo / "train.py").write_text("lr = 0.5\n")
    _make_stat_dirty(repo / "data.txt")
    _assert_read_correctly(_capture(repo), repo, markers)


def test_git_settings_from_the_environment_are_dropped(
    make_repo: MakeRepo, tools: Path, markers: Path
) -> None:
    repo = make_repo()
    (repo / ".gitattributes").write_text("*.txt filter=fromenv\n")
    (repo / "data.txt").write_text("rows\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "data")
    (repo / "train.py").write_text("lr = 0.5\n")
    _make_stat_dirty(repo / "data.txt")
    clean = _program(tools, "env-clean", markers)
    env = {
        **os.environ,
        # Driver settings given this way are not the repository's: only dropping them helps.
        "GIT_CONFIG_PARAMETERS": f"'filter.fromenv.clean'='{clean}' "
        f"'filter.fromenv.required'='true' 'core.fsmonitor'='{clean}'",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "filter.fromenv.process",
        "GIT_CONFIG_VALUE_0": _program(tools, "env-process", markers),
        "GIT_EXTERNAL_DIFF": _program(tools, "env-external-diff", markers),
        "GIT_SSH_COMMAND": _program(tools, "env-ssh", markers),
        "GIT_TRACE": str(markers / "trace"),  # git would write its trace there
        "GIT_DIR": str(tools),  # would point git at another repository
    }
    _assert_read_correctly(_capture(repo, env), repo, markers)


def test_a_hostile_submodule_runs_nothing(make_repo: MakeRepo, tools: Path, markers: Path) -> None:
    library = make_repo("library")
    (library / ".gitattributes").write_text("* filter=sub\n")
    git(library, "add", "-A")
    git(library, "commit", "-qm", "attributes")
    repo = make_repo("app")
    git(repo, "submodule", "add", "-q", str(library), "lib")
    git(repo, "commit", "-qm", "add submodule")
    checkout = repo / "lib"
    git(checkout, "config", "core.fsmonitor", _program(tools, "sub-fsmonitor", markers))
    git(checkout, "config", "filter.sub.process", _program(tools, "sub-process", markers))
    git(checkout, "config", "filter.sub.clean", _program(tools, "sub-clean", markers))
    git(checkout, "config", "filter.sub.required", "true")
    _make_stat_dirty(checkout / "train.py")
    (checkout / ".gitignore").write_text("*.log\n*.tmp\n")  # a change inside the submodule
    (repo / "train.py").write_text("lr = 0.5\n")
    manifest = _capture(repo)
    assert sorted(p.name for p in markers.iterdir()) == []
    code = manifest["code"]
    assert code["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert "+lr = 0.5" in code["patch"]
    # The submodule was still looked inside: its change shows, as git itself reports it.
    assert "-dirty" in code["patch"]
    assert [s["path"] for s in code["submodules"]] == ["lib"]


def test_a_driver_git_cannot_be_told_to_skip_stops_the_patch_only(
    make_repo: MakeRepo, tools: Path, markers: Path
) -> None:
    repo = make_repo()
    (repo / ".gitattributes").write_text("* filter=a=b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "attributes")
    # `-c filter.a=b.clean=` would set filter.a, so this driver cannot be emptied.
    with (repo / ".git" / "config").open("a") as config:
        config.write(f'[filter "a=b"]\n\tclean = {_program(tools, "clean", markers)}\n')
    _make_stat_dirty(repo / "train.py")
    manifest = _capture(repo)
    assert sorted(p.name for p in markers.iterdir()) == []
    code = manifest["code"]
    assert code["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert code["dirty"] is None and code["diff_sha256"] is None
    assert "filter.a=b" in code["unknown"]["diff_sha256"]


def _break(dot_git: Path, damage: str) -> None:
    if damage == "head_garbage":
        (dot_git / "HEAD").write_text("garbage\n")
    elif damage == "head_missing":
        (dot_git / "HEAD").unlink()
    elif damage == "empty_directory":
        shutil.rmtree(dot_git)
        dot_git.mkdir()
    elif damage == "dangling_link":
        (dot_git.parent / "moved.git").mkdir()
        dot_git.rename(dot_git.parent / "moved.git" / "gone")
        dot_git.symlink_to(dot_git.parent / "nowhere")
    elif damage == "gitfile_garbage":
        (dot_git.parent / "moved.git").mkdir()
        dot_git.rename(dot_git.parent / "moved.git" / "kept")
        dot_git.write_text("gitdir: /nonexistent/envsnap-test\n")


@pytest.mark.parametrize(
    "damage",
    ["head_garbage", "head_missing", "empty_directory", "dangling_link", "gitfile_garbage"],
)
def test_a_broken_nested_repository_is_recorded_as_broken_not_as_its_parent(
    make_repo: MakeRepo, damage: str
) -> None:
    parent = make_repo("parent")
    nested = parent / "experiments" / "run"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "train.py").write_text("print('nested')\n")
    git(nested, "add", "-A")
    git(nested, "commit", "-qm", "nested")
    _break(nested / ".git", damage)
    inside = nested / "src"
    inside.mkdir()
    manifest = _capture(parent, cwd=inside)
    record = manifest["collectors"]["code"]
    assert record["status"] == "error", record
    assert f"{nested.resolve()}/.git exists but git cannot read it" in record["reason"]
    assert manifest.get("code") is None
    assert git(parent, "rev-parse", "HEAD").strip() not in json.dumps(manifest)


def _fake_git(tools: Path, body: str) -> dict[str, str]:
    """An environment whose PATH finds a `git` that runs `body` first."""
    fake = tools / "git"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"}


# A child's peak RSS counts the memory of the process it was forked from (the kernel keeps the
# high-water mark of the image it replaced at exec), so the capture is started from a small
# interpreter that reports its children's peak: the test runner's own size stays out of it.
_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "started = time.monotonic()\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _run_measured(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of `argv` and of the children it waited for)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    wall_s, rss_kib = done.stdout.split()
    return float(wall_s), int(rss_kib) / 1024


@pytest.mark.skipif(sys.platform == "win32", reason="needs resource and a POSIX shell")
@pytest.mark.parametrize(
    "body",
    [
        "exec yes",
        "yes | cat",
        "yes >&2",
        # Each call of the fake git (capture runs several at once) names its own
        # file, written whole by a rename, so no reader sees a half-written pid.
        'd="$(dirname "$0")"; yes & echo $! > "$d/child.$$.tmp"; '
        'mv "$d/child.$$.tmp" "$d/child.$$.pid"; wait',
    ],
    ids=["stdout", "pipeline", "stderr", "grandchild"],
)
def test_an_endless_git_output_costs_bounded_memory_and_time(
    make_repo: MakeRepo, tools: Path, body: str
) -> None:
    repo = make_repo()
    env = _fake_git(tools, body)
    out = repo.parent / "manifest.json"
    argv = [sys.executable, "-m", "envsnap", "capture", "--only", "code", "-o", str(out)]
    wall_s, rss_mib = _run_measured(argv, repo, env)
    assert rss_mib < RSS_LIMIT_MIB, rss_mib
    assert wall_s < 30, wall_s
    record = json.loads(out.read_text())["collectors"]["code"]
    assert record["status"] == "error", record
    # Every grandchild that announced itself was killed with git's process group.
    for pid_file in tools.glob("child.*.pid"):
        _assert_gone(int(pid_file.read_text()))


def _assert_gone(pid: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} outlived the capture")
