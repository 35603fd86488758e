"""tools/lowest_constraints.py pins each declared dependency to its floor, and checks an
environment against those pins (the lowest-versions CI job, .ci/lowest)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

TOOL = REPO_ROOT / "tools" / "lowest_constraints.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60
    )


def _pyproject(tmp_path: Path, dependencies: list[str], extras: str = "") -> Path:
    path = tmp_path / "pyproject.toml"
    listed = ", ".join(f"{d!r}" for d in dependencies)
    path.write_text(
        f'[project]\nname = "x"\ndependencies = [{listed}]\n'
        f"[project.optional-dependencies]\n{extras}\n",
        encoding="utf-8",
    )
    return path


def _pins(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if not line.startswith("#")]


def test_the_projects_floors_are_pinned_and_its_test_tools_are_not() -> None:
    pins = _pins(_run("--except", "torch"))
    assert "pydantic==2.6" in pins  # from "pydantic>=2.6,<3"
    assert 'tomli==2.0; python_version < "3.11"' in pins  # runtime marker kept
    assert "orjson==3.9" in pins  # an optional extra (and a dev one)
    assert "cyclonedx-python-lib==8" in pins  # its [json-validation] extra dropped
    names = [pin.split("==")[0] for pin in pins]
    assert names == sorted(set(names)), "one pin per distribution, sorted"
    assert "torch" not in names
    assert "pytest" not in names and "mypy" not in names  # dev-only: newest is fine
    assert "torch==2.1" in _pins(_run())


def test_a_name_required_twice_is_pinned_to_its_highest_floor(tmp_path: Path) -> None:
    path = _pyproject(tmp_path, ["orjson>=3.9"], 'fast = ["ORJSON>=3.10,<4"]\ndev = ["pytest>=8"]')
    assert _pins(_run("--pyproject", str(path))) == ["orjson==3.10"]


@pytest.mark.parametrize(
    ("dependency", "reason"),
    [("rich", "no lower bound"), ("rich<14", "no lower bound"), ("rich>=13,!=13", "excludes 13")],
)
def test_a_dependency_without_a_testable_floor_is_refused(
    tmp_path: Path, dependency: str, reason: str
) -> None:
    done = _run("--pyproject", str(_pyproject(tmp_path, [dependency])))
    assert done.returncode == 2
    assert done.stdout == ""
    assert reason in done.stderr and done.stderr.count("\n") == 1


def test_check_installed_names_each_distribution_not_at_its_floor(tmp_path: Path) -> None:
    here = version("pytest")
    exact = _pyproject(tmp_path, [f"pytest>={here}", "absent-package>=1; python_version < '3'"])
    done = _run("--pyproject", str(exact), "--check-installed")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"installed at their floors: pytest=={here}")

    wrong = _pyproject(tmp_path, ["pytest>=1.0", "absent-package-for-the-test>=1"])
    done = _run("--pyproject", str(wrong), "--check-installed")
    assert done.returncode == 1
    assert f"pytest: {here} installed, floor ==1.0" in done.stderr
    assert "absent-package-for-the-test: not installed" in done.stderr
