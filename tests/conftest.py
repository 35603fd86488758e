"""Shared fixtures: real git repositories, and the CLI run in-process or as a subprocess.

Helpers that are not fixtures live in tests/helpers/.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import CliResult, git


@pytest.fixture(autouse=True)
def _no_terminal_size_from_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output width comes from COLUMNS when set: the shell's, or pytest-xdist's workers' (80).
    A test that wants a width sets it; the others lay out at the no-terminal default."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """Create a real git repository with one commit (or none) under tmp_path."""

    def factory(name: str = "repo", *, commit: bool = True) -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q")
        if commit:
            (root / "train.py").write_text("print('train')\n")
            (root / ".gitignore").write_text("*.log\n")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return factory


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run `envsnap ARGS` in-process and return exit code, stdout and stderr."""
    from envsnap.cli import main

    def invoke(*args: str, cwd: Path | None = None) -> CliResult:
        previous = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = int(exc.code or 0)
        finally:
            os.chdir(previous)
        captured = capsys.readouterr()
        return CliResult(code=code, out=captured.out, err=captured.err)

    return invoke


@pytest.fixture
def run_cli_process() -> Callable[..., CliResult]:
    """Run `python -m envsnap ARGS` as a real subprocess."""

    def invoke(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
    ) -> CliResult:
        done = subprocess.run(
            [sys.executable, "-m", "envsnap", *args],
            cwd=cwd,
            env=env if env is not None else dict(os.environ),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return CliResult(code=done.returncode, out=done.stdout, err=done.stderr)

    return invoke


@pytest.fixture
def clean_cwd(tmp_path: Path) -> Iterator[Path]:
    """Run a test from an empty directory outside any repository."""
    previous = Path.cwd()
    work = tmp_path / "cwd"
    work.mkdir()
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(previous)


@pytest.fixture
def no_git_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment with a PATH that holds no git binary."""
    bin_dir = tmp_path / "bin-without-git"
    bin_dir.mkdir()
    return {**os.environ, "PATH": str(bin_dir)}


@pytest.fixture(scope="session")
def real_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real `python -m torch.utils.collect_env` output of this machine."""
    pytest.importorskip("torch")
    done = subprocess.run(
        [sys.executable, "-m", "torch.utils.collect_env"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    path = tmp_path_factory.mktemp("collect_env") / "collect_env.txt"
    path.write_text(done.stdout, encoding="utf-8")
    return path
