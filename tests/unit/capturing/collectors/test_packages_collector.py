"""The `packages` collector: installed distributions, sources, lock files, conda records."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import threading
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.packages import (
    canonical_name,
    collect,
    conda_packages,
    distributions,
    lock_files,
    name_and_version,
)
from envsnap.manifest.sections.packages import PackagesSection
from tests import helpers
from tests.helpers import capture_context, reads_blocked_by_chmod

MakeRepo = Callable[..., Path]


@pytest.fixture(scope="module")
def installed() -> PackagesSection:
    return collect(capture_context(Path.cwd()))


def test_current_environment_packages_are_listed_with_real_versions(
    installed: PackagesSection,
) -> None:
    pytest_entry = installed.installed["pytest"]
    assert pytest_entry.version == pytest.__version__
    assert pytest_entry.name.lower() == "pytest"
    assert installed.installed["pydantic"].version == metadata.version("pydantic")
    assert list(installed.installed) == sorted(installed.installed)


def test_keys_are_normalized_names(installed: PackagesSection) -> None:
    for key, package in installed.installed.items():
        assert key == canonical_name(package.name)
        assert key == key.lower() and "_" not in key and "." not in key


def test_every_distribution_matches_the_stdlib_parser() -> None:
    """The fast header reader gives what importlib.metadata's e-mail parser gives."""
    for dist in metadata.distributions():
        name, version = name_and_version(dist)
        assert (name, version) == (dist.metadata["Name"], dist.version)


def test_discovery_finds_what_importlib_metadata_finds(tmp_path: Path) -> None:
    """Every layout importlib.metadata reads: dist-info and egg-info directories, an egg-info
    file, an egg directory's EGG-INFO, a zip archive, two versions in one directory."""
    site, egg, other = tmp_path / "site", tmp_path / "old_pkg-0.1-py3.11.egg", tmp_path / "b"
    header = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n\nlong description\n"
    for directory, name, version, meta in [
        (site / "alpha-1.0.dist-info", "alpha", "1.0", "METADATA"),
        (site / "alpha-2.0.dist-info", "alpha", "2.0", "METADATA"),
        (site / "Beta_Pkg-3.0.egg-info", "Beta_Pkg", "3.0", "PKG-INFO"),
        (egg / "EGG-INFO", "old_pkg", "0.1", "PKG-INFO"),
        (other / "alpha-0.5.dist-info", "alpha", "0.5", "METADATA"),
    ]:
        directory.mkdir(parents=True)
        (directory / meta).write_text(header.format(name, version), encoding="utf-8")
    (site / "gamma-4.0.egg-info").write_text(header.format("gamma", "4.0"), encoding="utf-8")
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("delta-5.0.dist-info/METADATA", header.format("delta", "5.0"))
    paths = [str(site), str(egg), str(archive), str(other), str(tmp_path / "missing")]

    fast = [name_and_version(dist) for dist in distributions(paths)]
    reference = [name_and_version(dist) for dist in metadata.distributions(path=paths)]
    assert sorted(fast, key=str) == sorted(reference, key=str)
    assert ("gamma", "4.0") in fast and ("delta", "5.0") in fast and ("old_pkg", "0.1") in fast
    # Path order is kept: the later directory's alpha comes after the first directory's.
    alphas = [version for name, version in fast if name == "alpha"]
    assert alphas[-1] == "0.5"


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("Foo.Bar__baz", "foo-bar-baz"), ("zope.interface", "zope-interface"), ("A-_.-B", "a-b")],
)
def test_canonical_name_follows_pep_503(raw: str, normalized: str) -> None:
    assert canonical_name(raw) == normalized


def test_lock_files_at_the_repository_root_are_digested(make_repo: MakeRepo) -> None:
    repo = make_repo()
    contents = {
        "uv.lock": b"version = 1\n",
        "poetry.lock": b"[[package]]\n",
        "requirements.txt": b"torch==2.3.0\n",
        "requirements-dev.txt": b"pytest\n",
        "Pipfile.lock": b"{}\n",
        "pdm.lock": b"# pdm\n",
        "environment.yml": b"name: x\n",
        "conda-lock.yml": b"version: 1\n",
    }
    for name, data in contents.items():
        (repo / name).write_bytes(data)
    (repo / "README.md").write_text("not a lock file\n")
    sub = repo / "src"
    sub.mkdir()
    section = collect(capture_context(sub))
    assert Path(section.project_root or "") == repo.resolve()
    assert [(f.path, f.sha256, f.bytes) for f in section.lock_files] == [
        (name, hashlib.sha256(data).hexdigest(), len(data))
        for name, data in sorted(contents.items())
    ]
    assert section.unknown == {}


def test_unreadable_lock_file_stays_listed_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text("ok\n")
    broken = tmp_path / "requirements.txt"
    if reads_blocked_by_chmod(tmp_path):
        broken.write_text("x\n")
        broken.chmod(0)
    elif Path("/proc/self/mem").exists():
        # Root reads through chmod 000; /proc/self/mem is a regular file whose read fails.
        broken.symlink_to("/proc/self/mem")
    else:
        pytest.skip("no way to make a file unreadable here")
    unknown: dict[str, str] = {}
    try:
        found = lock_files(tmp_path, unknown)
    finally:
        if not broken.is_symlink():
            broken.chmod(0o600)
    assert [(f.path, f.sha256 is None) for f in found] == [
        ("requirements.txt", True),
        ("uv.lock", False),
    ]
    assert set(unknown) == {"lock_files.requirements.txt"}
    assert unknown["lock_files.requirements.txt"].startswith("cannot read:")


def test_conda_meta_records_are_parsed_from_file_names(tmp_path: Path) -> None:
    assert conda_packages(tmp_path) is None
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    (meta / "pytorch-2.3.0-py3.11_cuda12.1_cudnn8.9.2_0.json").write_text("{}")
    (meta / "libgcc-ng-13.2.0-h77fa898_7.json").write_text("{}")
    (meta / "history").write_text("")
    records = conda_packages(tmp_path)
    assert records is not None
    assert {k: (v.version, v.build) for k, v in records.items()} == {
        "pytorch": ("2.3.0", "py3.11_cuda12.1_cudnn8.9.2_0"),
        "libgcc-ng": ("13.2.0", "h77fa898_7"),
    }


def _run_shown(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a subprocess; on failure the assertion shows its output, not a bare CalledProcessError."""
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def _venv_with_editable_package(tmp_path: Path) -> tuple[Path, Path]:
    """A venv that sees this environment's packages, plus an editable install built here.

    `--system-site-packages` would expose the *base* interpreter's packages (which may lack
    setuptools or pytest), not this environment's; a .pth file naming this environment's
    site-packages makes the nested venv see exactly what the test itself runs with.
    """
    pytest.importorskip("setuptools", reason="the editable build needs setuptools")
    project = tmp_path / "demo"
    (project / "src" / "demo_pkg").mkdir(parents=True)
    (project / "src" / "demo_pkg" / "__init__.py").write_text("")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "Demo_Pkg.Editable"\nversion = "1.2.3"\n'
    )
    venv = tmp_path / "venv"
    _run_shown([sys.executable, "-m", "venv", "--without-pip", str(venv)], timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    nested_site = _run_shown(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        timeout=60,
    ).stdout.strip()
    # addsitedir (not a bare path line) so the outer .pth files, editable installs among them,
    # are processed too.
    outer = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    lines = [f"import site; site.addsitedir({path!r})" for path in outer]
    Path(nested_site, "outer_env.pth").write_text("\n".join(lines) + "\n")
    pip_install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run_shown(
        [*pip_install, "--no-build-isolation", "--no-deps", "--no-index", "-e", str(project)],
        timeout=300,
    )
    return python, project


@pytest.mark.slow
def test_editable_install_in_a_venv_is_reported(tmp_path: Path, make_repo: MakeRepo) -> None:
    python, project = _venv_with_editable_package(tmp_path)
    repo = make_repo()
    done = _run_shown(
        [str(python), "-m", "envsnap", "capture", "--only", "packages,python"],
        cwd=repo,
        timeout=120,
    )
    manifest = json.loads(done.stdout)
    demo = manifest["packages"]["installed"]["demo-pkg-editable"]
    assert demo["name"] == "Demo_Pkg.Editable"
    assert demo["version"] == "1.2.3"
    assert demo["source"] == "editable"
    assert demo["url"] == project.as_uri()
    assert manifest["packages"]["installed"]["pytest"]["version"] == pytest.__version__
    assert manifest["python"]["in_venv"] is True
    assert manifest["python"]["environment"] == "venv"
    assert Path(manifest["python"]["prefix"]) == python.parent.parent


def test_vcs_and_url_sources_from_direct_url_json(tmp_path: Path) -> None:
    """PEP 610 records written by an installer, read back through importlib.metadata."""
    from envsnap.capturing.collectors.packages import installed_packages
    from envsnap.capturing.redact import Redactor

    site = tmp_path / "site"
    records = {
        "vcs_pkg": {
            "url": "https://user:hunter2pw@github.com/org/vcs_pkg.git",
            "vcs_info": {"vcs": "git", "commit_id": "a" * 40},
        },
        "url_pkg": {"url": "https://files.example.com/url_pkg-1.0.tar.gz", "archive_info": {}},
        "local_pkg": {"url": "file:///src/local_pkg", "dir_info": {}},
    }
    for name, direct_url in records.items():
        info = site / f"{name}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "INSTALLER").write_text("uv\n")
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    sys.path.insert(0, str(site))
    try:
        found = installed_packages(Redactor())
    finally:
        sys.path.remove(str(site))
    vcs = found["vcs-pkg"]
    assert (vcs.source, vcs.vcs, vcs.commit, vcs.installer) == ("vcs", "git", "a" * 40, "uv")
    assert vcs.url == "https://<redacted>@github.com/org/vcs_pkg.git"
    assert found["url-pkg"].source == "url"
    assert found["local-pkg"].source == "local"


def test_shadowed_distribution_is_recorded(tmp_path: Path) -> None:
    from envsnap.capturing.collectors.packages import installed_packages
    from envsnap.capturing.redact import Redactor

    site = tmp_path / "site"
    info = site / "pytest-0.0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pytest\nVersion: 0.0.1\n")
    sys.path.append(str(site))  # later on sys.path: hidden by the real pytest
    try:
        found = installed_packages(Redactor())
    finally:
        sys.path.remove(str(site))
    assert found["pytest"].version == pytest.__version__
    assert "0.0.1" in found["pytest"].shadowed


def test_a_packages_vendored_copies_on_sys_path_are_not_installed_packages(
    tmp_path: Path,
) -> None:
    """setuptools appends its `_vendor` directory to sys.path when imported (torch.compile
    imports it); what lies there are setuptools' private copies, not installed packages."""
    from envsnap.capturing.collectors.packages import installed_packages
    from envsnap.capturing.redact import Redactor

    vendor = tmp_path / "site" / "setuptools" / "_vendor"
    for name in ("jaraco.text-3.12.1", "backports.tarfile-1.2.0"):
        info = vendor / f"{name}.dist-info"
        info.mkdir(parents=True)
        project, version = name.rsplit("-", 1)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n"
        )
    real = tmp_path / "site" / "envsnap_planted-1.0.dist-info"
    real.mkdir()
    (real / "METADATA").write_text("Metadata-Version: 2.1\nName: envsnap-planted\nVersion: 1.0\n")
    sys.path.extend([str(tmp_path / "site"), str(vendor)])
    try:
        found = installed_packages(Redactor())
    finally:
        sys.path.remove(str(tmp_path / "site"))
        sys.path.remove(str(vendor))
    assert found["envsnap-planted"].version == "1.0"
    assert "jaraco-text" not in found and "backports-tarfile" not in found


@pytest.mark.slow
def test_collector_does_not_import_the_packages_it_lists(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from envsnap.capturing.collectors.packages import collect\n"
        "from tests.helpers import capture_context\n"
        "section = collect(capture_context(Path.cwd()))\n"
        "print(len(section.installed), "
        "sorted(m for m in ('torch', 'numpy', 'deepdiff', 'hypothesis') if m in sys.modules))\n"
    )
    root = helpers.REPO_ROOT
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    count, imported = done.stdout.split(" ", 1)
    assert int(count) > 10
    assert imported.strip() == "[]"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_where_metadata_belongs_is_skipped_without_waiting(tmp_path: Path) -> None:
    """Reading a named pipe blocks until a writer comes; the collector must not wait."""
    site = tmp_path / "site"
    (site / "piped-1.0.dist-info").mkdir(parents=True)
    os.mkfifo(site / "piped-1.0.dist-info" / "METADATA")
    os.mkfifo(site / "fifo-2.0.egg-info")
    ok = site / "fine-3.0.dist-info"
    ok.mkdir()
    (ok / "METADATA").write_text("Metadata-Version: 2.1\r\nName: fine\r\nVersion: 3.0\r\n\r\n")
    found: list[tuple[str | None, str | None]] = []
    reader = threading.Thread(
        target=lambda: found.extend(name_and_version(d) for d in distributions([str(site)])),
        daemon=True,
    )
    reader.start()
    reader.join(20)
    assert not reader.is_alive(), "reading a pipe blocked"
    assert sorted(found, key=str) == [("fine", "3.0"), (None, None), (None, None)]
