"""The repository's workflows and the envsnap action pass actionlint."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

ACTIONLINT = shutil.which("actionlint")
pytestmark = pytest.mark.skipif(ACTIONLINT is None, reason="actionlint is not installed")


def _lint(*files: Path, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ACTIONLINT or "actionlint", "-no-color", *map(str, files)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_repository_workflows_pass_actionlint() -> None:
    workflows = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    result = _lint(*workflows)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """Proves the check above can fail: an unknown input to the local action is reported."""
    shutil.copy(REPO_ROOT / "action.yml", tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "bad.yml").write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - uses: ./\n        with:\n          no-such-input: 1\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    result = _lint(workflows / "bad.yml", cwd=tmp_path)
    assert result.returncode != 0
    assert "no-such-input" in result.stdout
