"""`envsnap export patch`: the kept dirty-tree patch restores the exact code with `git apply`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from envsnap.capturing.collectors.code import PATCH_MAX_BYTES
from tests.helpers import CliResult, git

RunCli = Callable[..., CliResult]


def _capture(run_cli: RunCli, repo: Path, out: Path) -> Path:
    result = run_cli("capture", "--only", "code", "-o", str(out), cwd=repo)
    assert result.code == 0, result.err
    return out


def test_the_exported_patch_restores_the_dirty_tree(
    run_cli: RunCli, make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("print('train')\nlr = 3e-4  # tuned\n")
    (repo / ".gitignore").unlink()
    (repo / "nested").mkdir()
    (repo / "nested" / "model.py").write_text("layers = 12\n")
    git(repo, "add", "nested/model.py")  # a new file, staged: part of the patch
    dirty = {p: (repo / p).read_bytes() for p in ("train.py", "nested/model.py")}
    manifest = _capture(run_cli, repo, tmp_path / "run.json")

    git(repo, "reset", "-q", "--hard", "HEAD")
    assert (repo / "train.py").read_bytes() != dirty["train.py"]
    assert (repo / ".gitignore").exists() and not (repo / "nested").exists()
    patch = tmp_path / "code.patch"
    result = run_cli("export", "patch", str(manifest), "-o", str(patch))
    assert (result.code, result.err) == (0, "")
    git(repo, "apply", str(patch))

    assert {p: (repo / p).read_bytes() for p in dirty} == dirty
    assert not (repo / ".gitignore").exists()
    printed = run_cli("export", "patch", str(manifest))
    assert printed.out == patch.read_text(encoding="utf-8")


def test_a_clean_tree_has_no_patch_and_says_how_to_restore(
    run_cli: RunCli, make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo()
    manifest = _capture(run_cli, repo, tmp_path / "run.json")
    result = run_cli("export", "patch", str(manifest))
    assert (result.code, result.out) == (2, "")
    assert result.err.count("\n") == 1 and "clean at capture" in result.err
    assert "git checkout" in result.err


def test_a_manifest_without_a_code_section_gives_one_line(
    run_cli: RunCli, make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo()
    out = tmp_path / "run.json"
    assert run_cli("capture", "--only", "python", "-o", str(out), cwd=repo).code == 0
    result = run_cli("export", "patch", str(out))
    assert (result.code, result.out) == (2, "")
    assert result.err.count("\n") == 1 and "no code section" in result.err
    assert "Traceback" not in result.err


def test_a_patch_too_large_to_keep_says_so(
    run_cli: RunCli, make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo()
    (repo / "train.py").write_text("x = 1\n" * (PATCH_MAX_BYTES // 6 + 1000))
    manifest = _capture(run_cli, repo, tmp_path / "run.json")
    assert json.loads(manifest.read_text(encoding="utf-8"))["code"]["diff_bytes"] > PATCH_MAX_BYTES
    result = run_cli("export", "patch", str(manifest))
    assert (result.code, result.out) == (2, "")
    assert result.err.count("\n") == 1
    assert "no patch kept" in result.err and "over the 256 KiB" in result.err


def test_a_patch_with_a_redacted_secret_is_exported_with_a_warning(
    run_cli: RunCli, make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo()
    secret = "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f"
    (repo / "train.py").write_text(f"token = '{secret}'\n")
    manifest = _capture(run_cli, repo, tmp_path / "run.json")
    result = run_cli("export", "patch", str(manifest))
    assert result.code == 0
    assert secret not in result.out and "+token = " in result.out
    assert result.err.startswith("envsnap: warning:") and "redacted" in result.err
