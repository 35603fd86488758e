"""A cached virtual environment that holds a recorded run's package versions.

Only the versions that differ from this environment are installed, exactly pinned and without
dependencies (the recorded set is already a resolved set), into the venv's own site-packages;
the rest of this environment stays visible behind it through a `.pth` file. The job sees the
recorded versions whether it starts the venv's `python` (first on PATH) or this interpreter
(the overlay is also put on PYTHONPATH). uv installs when it is on PATH, else pip. A package
that cannot be installed is reported with the installer's last line, never guessed around.

A manifest names the packages, so each is checked first (`pin_problem`): a PEP 508 name and an
exact version, nothing else (no URL, path, option, extra or marker). The pins reach the
installer as lines of a requirements file, never as arguments, and only as wheels, so that
installing runs no build script.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from envsnap.errors import EnvsnapError

MARKER = "envsnap-venv.json"
INSTALL_TIMEOUT_S = 900
MAX_VERSION_CHARS = 64
# A distribution name as PEP 508 defines it (https://peps.python.org/pep-0508/#names).
_PEP508_NAME = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True)
class InstallOptions:
    """Where and how to install: cache directory, extra wheel directories, index use."""

    cache_dir: Path
    find_links: tuple[str, ...] = ()
    no_index: bool = False


@dataclass
class PackageEnv:
    root: Path
    site: Path
    installed: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # name -> why it could not install
    engine: str = "pip"


def normalize(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def pin_problem(name: object, version: object) -> str | None:
    """Why `name==version` is not a plain pin of an index release, or None when it is."""
    from packaging.version import InvalidVersion, Version

    if not isinstance(name, str) or _PEP508_NAME.fullmatch(name) is None:
        return "not a package name"
    if not isinstance(version, str) or len(version) > MAX_VERSION_CHARS:
        return "not a version"
    try:
        Version(version)
    except InvalidVersion:
        return "not a version"
    return None if version.strip() == version else "not a version"


def requirement(name: str, version: str) -> str:
    """The requirement line of a checked pin (see `pin_problem`): `name==version`, normalised."""
    from packaging.version import Version

    return f"{normalize(name)}=={Version(version)}"


def host_versions() -> dict[str, str]:
    """Installed distributions of this interpreter, by normalized name (first on sys.path)."""
    from importlib.metadata import distributions

    found: dict[str, str] = {}
    for dist in distributions():
        name = dist.metadata["Name"] if dist.metadata else None
        if name:
            found.setdefault(normalize(name), dist.version)
    return found


def default_cache_dir() -> Path:
    """ENVSNAP_CACHE_DIR/venvs, else the XDG cache directory's envsnap/venvs."""
    explicit = os.environ.get("ENVSNAP_CACHE_DIR")
    if explicit:
        return Path(explicit) / "venvs"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "envsnap" / "venvs"


def _key(pins: dict[str, str], options: InstallOptions) -> str:
    payload = json.dumps(
        [sorted(pins.items()), sys.version, list(options.find_links), options.no_index]
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def build(pins: dict[str, str], options: InstallOptions, work_dir: Path) -> PackageEnv:
    """The venv holding `pins` (name -> version), built once and reused from the cache.

    Every pin must pass `pin_problem`; the requirements files are written into `work_dir`.
    """
    for name, version in pins.items():
        problem = pin_problem(name, version)
        if problem is not None:
            raise EnvsnapError(f"refusing to install {name!r}=={version!r}: {problem}")
    root = options.cache_dir / _key(pins, options)
    marker = root / MARKER
    if marker.is_file():
        record = json.loads(marker.read_text(encoding="utf-8"))
        return PackageEnv(
            root, _site(root), record["installed"], record["failed"], record["engine"]
        )
    building = root.with_name(f"{root.name}.tmp{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    _make_venv(building)
    env = PackageEnv(building, _site(building), engine="uv" if shutil.which("uv") else "pip")
    _install(env, pins, options, work_dir)
    _write_base_pth(env.site)
    (building / MARKER).write_text(
        json.dumps({"installed": env.installed, "failed": env.failed, "engine": env.engine}),
        encoding="utf-8",
    )
    shutil.rmtree(root, ignore_errors=True)
    building.rename(root)
    return PackageEnv(root, _site(root), env.installed, env.failed, env.engine)


def _site(root: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)}))


def _make_venv(root: Path) -> None:
    # No pip inside: installs go through this interpreter's pip (or uv) with --target.
    done = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise EnvsnapError(f"cannot create a virtual environment: {_last_line(done.stderr)}")
    _site(root).mkdir(parents=True, exist_ok=True)


def _write_base_pth(site_dir: Path) -> None:
    # addsitedir (not a bare path) so the .pth files of this environment (editable installs)
    # are processed too.
    dirs = [d for d in site.getsitepackages() if os.path.isdir(d)]
    lines = [f"import site; site.addsitedir({d!r})" for d in dirs]
    (site_dir / "_envsnap_base.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _command(env: PackageEnv, requirements: Path, options: InstallOptions) -> list[str]:
    # --find-links and --no-index are the user's own options; the manifest's names and versions
    # only ever reach the installer inside the requirements file.
    flags = [*(f"--find-links={d}" for d in options.find_links)]
    if options.no_index:
        flags.append("--no-index")
    if env.engine == "uv":
        uv = shutil.which("uv") or "uv"
        return [uv, "pip", "install", "--quiet", "--no-deps", "--only-binary=:all:",
                "--python", sys.executable, "--target", str(env.site), *flags,
                "-r", str(requirements)]  # fmt: skip
    return [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "--no-input", "--target", str(env.site),
            *flags, "-r", str(requirements)]  # fmt: skip


def _run_installer(env: PackageEnv, requirements: Path, options: InstallOptions) -> str | None:
    """Install a requirements file; None when it worked, else the installer's last error line."""
    try:
        done = subprocess.run(
            _command(env, requirements, options),
            check=False,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"the installer ran past {INSTALL_TIMEOUT_S} s"
    return None if done.returncode == 0 else _last_line(done.stderr or done.stdout)


def _requirements(work_dir: Path, stem: str, lines: list[str]) -> Path:
    path = work_dir / f"{stem}.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _install(
    env: PackageEnv, pins: dict[str, str], options: InstallOptions, work_dir: Path
) -> None:
    if not pins:
        return
    work_dir.mkdir(parents=True, exist_ok=True)
    specs = {name: requirement(name, version) for name, version in sorted(pins.items())}
    every = _requirements(work_dir, "requirements", list(specs.values()))
    if _run_installer(env, every, options) is None:
        env.installed = dict(pins)
        return
    # One failure fails the whole batch: retry one by one to name the ones that cannot install.
    for name, spec in specs.items():
        error = _run_installer(
            env, _requirements(work_dir, f"requirements-{name}", [spec]), options
        )
        if error is None:
            env.installed[name] = pins[name]
        else:
            env.failed[name] = error


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
