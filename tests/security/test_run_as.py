"""`envsnap run --as B.json` never runs what a hostile manifest names.

Each attack worked against the real CLI before the allowlist: B's variables ran B's code in the
job and in envsnap's own post-run capture (even with `/bin/true` as the job), nothing asked
first, and package names reached pip as options or URLs. Every test here builds B from a real
capture, edits it, seals it again with the project's own digest so that only the defence can
stop the attack, runs `python -m envsnap run --as` in a real subprocess, and checks that the
marker file the attack would create does not exist.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from envsnap.manifest.canonical import digest_of
from envsnap.manifest.sealed import verify_document
from tests.acceptance.bisect_jobs import build_wheel, write_wheel

TIMEOUT_S = 120


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real capture of this environment (no torch: the attacks do not need it)."""
    where = tmp_path_factory.mktemp("capture")
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "-o", str(where / "base.json")],
        cwd=where, capture_output=True, text=True, timeout=TIMEOUT_S, check=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads((where / "base.json").read_text(encoding="utf-8"))
    return document


def hostile(
    base: dict[str, Any],
    where: Path,
    variables: dict[str, Any] | None = None,
    packages: dict[str, dict[str, Any]] | None = None,
) -> Path:
    """B: the capture with `variables` recorded and `packages` installed, sealed again."""
    document = copy.deepcopy(base)
    env = document["env"]
    env["variables"] = {**env["variables"], **(variables or {})}
    env["names"] = sorted({*env["names"], *(variables or {})})
    for name, package in (packages or {}).items():
        document["packages"]["installed"][name] = {"name": name, **package}
    document["digest"] = digest_of(document)
    assert verify_document(document)[0], "the hostile manifest must carry a valid digest"
    path = where / "hostile.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def run_as(
    manifest: Path, *args: str, cwd: Path, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", "run", "--as", str(manifest), *args],
        cwd=cwd, stdin=stdin, capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def writes_marker(path: Path, marker: Path) -> Path:
    """An executable shell script that creates `marker`."""
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository with one commit, to run from (the post-run capture reads it)."""
    root = tmp_path / "repo"
    root.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["git", "init", "-q"],
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
         "--allow-empty", "-m", "start"],
    ):  # fmt: skip
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True, timeout=30)
    return root


def test_warnings_filter_and_browser_do_not_run_code_in_the_post_run_capture(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """PYTHONWARNINGS imports `antigravity`, which starts $BROWSER: in envsnap's own capture."""
    marker = tmp_path / "browser-ran"
    browser = writes_marker(tmp_path / "browser.sh", marker)
    manifest = hostile(
        captured, tmp_path,
        {"PYTHONWARNINGS": "ignore::antigravity.x", "BROWSER": f"{browser} %s"},
    )  # fmt: skip
    done = run_as(manifest, "--yes", "--", "/bin/true", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "not applied: env:BROWSER: names a program that other programs start" in done.stderr
    assert "not applied: env:PYTHONWARNINGS: Python start-up" in done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_env_does_not_run_a_script(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "bash-env-ran"
    script = writes_marker(tmp_path / "startup.sh", marker)
    manifest = hostile(captured, tmp_path, {"BASH_ENV": str(script), "ENV": str(script)})
    done = run_as(manifest, "--yes", "--no-manifest", "--", "bash", "-c", "true", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "not applied: env:BASH_ENV: shell start-up" in done.stderr


def test_git_config_parameters_do_not_run_an_fsmonitor(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """core.fsmonitor is a command git runs on `git status`, as the post-run capture does."""
    marker = tmp_path / "fsmonitor-ran"
    monitor = writes_marker(tmp_path / "monitor.sh", marker)
    manifest = hostile(
        captured, tmp_path, {"GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{monitor}'"}
    )
    done = run_as(manifest, "--yes", "--", "/bin/true", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "not applied: env:GIT_CONFIG_PARAMETERS: git:" in done.stderr


def _audit_library(where: Path, marker: Path) -> Path | None:
    """A shared library whose constructor creates `marker` (None without a C compiler)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None
    source = where / "audit.c"
    source.write_text(
        "#include <fcntl.h>\n#include <unistd.h>\n"
        "unsigned int la_version(unsigned int v) { return v; }\n"
        f'__attribute__((constructor)) static void ran(void) {{ close(open("{marker}", '
        "O_CREAT | O_WRONLY, 0644)); }\n",
        encoding="utf-8",
    )
    library = where / "libaudit.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-o", str(library), str(source)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return library


@pytest.mark.slow
def test_loader_variables_never_reach_the_job(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "library-loaded"
    library = _audit_library(tmp_path, marker) or tmp_path / "libaudit.so"
    names = ("LD_AUDIT", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES")
    manifest = hostile(captured, tmp_path, dict.fromkeys(names, str(library)))
    job = [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"]
    done = run_as(manifest, "--yes", "--", *job, cwd=repo)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert not [name for name, value in seen.items() if str(library) in value]
    assert not marker.exists(), "a library named by the manifest was loaded"
    for name in names:
        assert f"not applied: env:{name}: the dynamic loader" in done.stderr


@pytest.mark.slow
def test_the_manifests_path_never_replaces_this_one(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """B's PATH would put its own `git` before this machine's, for the job and the capture."""
    marker = tmp_path / "fake-git-ran"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    writes_marker(bin_dir / "git", marker)
    manifest = hostile(captured, tmp_path, {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"})
    done = run_as(manifest, "--yes", "--", "git", "--version", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("git version")
    assert not marker.exists()
    assert "not applied: env:PATH: a search path" in done.stderr


def test_the_plan_comes_first_and_escaped_and_quiet_still_shows_it(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    manifest = hostile(
        captured, tmp_path,
        {"NVIDIA_TF32_OVERRIDE": "\x1b[2J0", "CLEAR\x1b[2JNAME": "x", "OMP_NUM_THREADS": "3"},
    )  # fmt: skip
    for quiet in ([], ["-q"]):
        job = ["sh", "-c", "echo JOB-RAN >&2"]
        done = run_as(manifest, "--yes", "--no-manifest", *quiet, "--", *job, cwd=repo)
        assert done.returncode == 0, done.stderr
        err = done.stderr
        assert "\x1b" not in err, "a terminal escape from the manifest reached the terminal"
        assert "\\x1b[2J" in err
        assert err.index("conditions of") < err.index("applied: env OMP_NUM_THREADS=3")
        assert err.index("applied: env OMP_NUM_THREADS=3") < err.index("JOB-RAN")
        assert "env:NVIDIA_TF32_OVERRIDE: the value has control or invisible characters" in err
        assert "CLEAR\\x1b[2JNAME" in err


def test_without_yes_and_without_a_terminal_nothing_runs(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "job-ran"
    manifest = hostile(captured, tmp_path, {"OMP_NUM_THREADS": "2"})
    done = run_as(manifest, "--", "touch", str(marker), cwd=repo)
    assert done.returncode == 2
    assert not marker.exists()
    assert "applied: env OMP_NUM_THREADS=2" in done.stderr  # the plan, shown before refusing
    errors = [line for line in done.stderr.splitlines() if line.startswith("envsnap: error:")]
    assert len(errors) == 1 and "--yes" in errors[0]
    assert not (repo / ".envsnap").exists(), "a refused run must leave nothing behind"


def _wheel_running_code_at_start(where: Path, marker: Path) -> Path:
    """evil-1.0-py3-none-any.whl: its .pth runs at every interpreter start, creating `marker`."""
    info = "evil-1.0.dist-info"
    files = {
        "evil.pth": f"import os; open({str(marker)!r}, 'w').close()\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
        f"{info}/RECORD": "",
    }
    path = where / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def _index(version: str, source: str = "index") -> dict[str, Any]:
    return {"version": version, "installer": "pip", "source": source}


@pytest.mark.slow
def test_hostile_package_names_never_reach_pip(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """Names that are pip options, URLs, markers or editable paths are reported, never
    installed; the one plain pin is installed by a real pip, from the user's wheel directory."""
    marker = tmp_path / "pth-ran"
    evil = _wheel_running_code_at_start(tmp_path, marker)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "2.0", 1e-3)
    names = {
        "--index-url=http://127.0.0.1:9/simple": _index("1.0"),
        f"evil @ {evil.as_uri()}": _index("1.0"),
        # `#` makes the `==1.0` a pin would append part of the URL: pip installed this one.
        f"evil @ {evil.as_uri()}#": _index("1.0"),
        'evil; python_version>"0"': _index("1.0"),
        "-e .": _index("1.0"),
        "evil": _index(f"1.0 @ {evil.as_uri()}"),
        "evilvcs": _index("1.0", source="vcs"),
        "numdefault": _index("2.0"),
    }
    manifest = hostile(captured, tmp_path, packages=names)
    # `python` is the package venv's (first on PATH), which processes the .pth files there.
    job = ["python", "-c", "import numdefault; print(numdefault.EPS)"]
    run_dir = tmp_path / "run"
    done = run_as(
        manifest, "--yes", "--no-manifest", "--packages", "--no-index",
        "--find-links", str(wheels), "--cache-dir", str(tmp_path / "cache"),
        "--work-dir", str(run_dir), "--", *job, cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0.001"  # the plain pin was installed and is the one imported
    assert not marker.exists(), "a wheel named by the manifest ran its .pth"
    assert "applied: package numdefault==2.0" in done.stderr
    for name in [n for n in names if n not in ("numdefault", "evil", "evilvcs")]:
        assert f"not applied: package:{name}: not a package name" in done.stderr, name
    assert "not applied: package:evil: not a version" in done.stderr
    assert "not applied: package:evilvcs: installed from a VCS/local source" in done.stderr
    requirements = (run_dir / "requirements.txt").read_text(encoding="utf-8")
    assert requirements == "numdefault==2.0\n"


@pytest.mark.slow
def test_code_in_the_package_venv_never_runs_in_envsnaps_own_capture(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """A wheel B names (any package on the index) may ship a sitecustomize.py or shadow a
    standard module; with a job that starts no Python, nothing of it may run, and the run's
    manifest still lists the package, read from its metadata."""
    marker = tmp_path / "sitecustomize-ran"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    payload = f"open({str(marker)!r}, 'a').close()\n".encode()
    write_wheel(wheels, "shadow", "1.0", {"sitecustomize.py": payload, "json/__init__.py": payload})
    manifest = hostile(captured, tmp_path, packages={"shadow": _index("1.0")})
    run_dir = tmp_path / "run"
    done = run_as(
        manifest, "--yes", "--packages", "--no-index", "--find-links", str(wheels),
        "--cache-dir", str(tmp_path / "cache"), "--work-dir", str(run_dir), "--", "true", cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "applied: package shadow==1.0" in done.stderr
    assert not marker.exists(), "the package venv's code ran in envsnap's own capture"
    recorded = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert recorded["packages"]["installed"]["shadow"]["version"] == "1.0"


def test_bisect_asks_first_and_never_applies_a_hostile_variable(
    captured: dict[str, Any], repo: Path, tmp_path: Path
) -> None:
    """bisect applies A's and B's table variables only, after the same plan and confirmation."""
    marker = tmp_path / "bash-env-ran"
    script = writes_marker(tmp_path / "startup.sh", marker)
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    side_a = hostile(captured, a, {"OMP_NUM_THREADS": "1"})
    side_b = hostile(
        captured, b, {"OMP_NUM_THREADS": "2", "BASH_ENV": str(script), "EVIL\x1b[2J": "1"}
    )
    job = ["bash", "-c", "echo metric: $OMP_NUM_THREADS"]
    args = ["bisect", str(side_a), str(side_b), "--metric", r"metric: (\S+)",
            "--work-dir", str(tmp_path / "work")]  # fmt: skip
    refused = subprocess.run(
        [sys.executable, "-m", "envsnap", *args, "--", *job],
        cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "applied: env OMP_NUM_THREADS=2" in refused.stderr
    assert not (tmp_path / "work").exists()
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", *args, "--yes", "--", *job],
        cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "confirmed: env:OMP_NUM_THREADS" in done.stdout
    assert not marker.exists()
    assert "\x1b" not in done.stdout + done.stderr
    assert "not applied: env:BASH_ENV: shell start-up" in done.stderr
