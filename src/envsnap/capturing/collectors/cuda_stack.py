"""`cuda_stack`: the torch build and the CUDA libraries it will load, read from files only.

Nothing is imported or dlopened: torch's `version.py` is parsed as text (with `ast`, never
executed), wheels are found by their `.dist-info` directory names, conda packages by their
`conda-meta` record names, and system libraries by their file names on the loader's search path.

Which copy torch loads follows the dynamic loader's order applied to how torch is packaged:

- pip wheels: `libtorch_cuda.so` carries a forced RPATH `$ORIGIN/../../nvidia/<lib>/lib:...:$ORIGIN`
  (pytorch/builder#1183), searched before LD_LIBRARY_PATH; then LD_LIBRARY_PATH, the ld.so.conf
  and default directories; `nvidia/*` wheels elsewhere on sys.path are only a fallback that
  `torch._preload_cuda_deps` uses when the normal resolution failed (pytorch/pytorch#90426);
- conda builds: LD_LIBRARY_PATH first (pytorch/pytorch#19309 shows a system copy winning), then
  torch/lib, then the environment's `lib`, then the system directories.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.capturing.collectors.packages import conda_packages
from envsnap.manifest import build_tags
from envsnap.manifest.records import (
    CudaStackSection,
    Library,
    LibraryCopy,
    LibrarySource,
)

# Component (the directory name inside an nvidia-* wheel) -> shared library stem.
COMPONENTS: dict[str, str] = {
    "cudnn": "libcudnn",
    "cublas": "libcublas",
    "nccl": "libnccl",
    "cusparse": "libcusparse",
    "cufft": "libcufft",
    "nvjitlink": "libnvJitLink",
    "cuda_runtime": "libcudart",
    "cuda_nvrtc": "libnvrtc",
    "curand": "libcurand",
    "cusolver": "libcusolver",
    "cusparselt": "libcusparseLt",
    "cuda_cupti": "libcupti",
}
# conda-forge / nvidia channel package names -> component.
CONDA_NAMES: dict[str, str] = {
    "cudnn": "cudnn",
    "nccl": "nccl",
    "libcublas": "cublas",
    "libcusparse": "cusparse",
    "libcufft": "cufft",
    "libnvjitlink": "nvjitlink",
    "cuda-cudart": "cuda_runtime",
    "cuda-nvrtc": "cuda_nvrtc",
    "libcurand": "curand",
    "libcusolver": "cusolver",
    "libcusparselt": "cusparselt",
    "cuda-cupti": "cuda_cupti",
    "triton": "triton",
}
# The pre-2023 conda `cudatoolkit` package (defaults and conda-forge) ships the CUDA runtime
# libraries in one package, versioned as the toolkit: libcudart, libcublas(Lt), libcufft,
# libcurand, libcusolver, libcusparse, libnvrtc
# (https://docs.nvidia.com/cuda/cuda-installation-guide-linux/#conda-installation).
CUDATOOLKIT_COMPONENTS = (
    "cuda_runtime",
    "cublas",
    "cufft",
    "curand",
    "cusolver",
    "cusparse",
    "cuda_nvrtc",
)
TRITON_DISTS = ("triton", "pytorch_triton", "pytorch_triton_rocm")
# Directories the loader searches after LD_LIBRARY_PATH when ld.so.conf is absent or partial.
DEFAULT_LIB_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")

_NVIDIA_DIST = re.compile(
    r"^nvidia_(?P<component>[a-z_]+?)(?:_cu\d+)?-(?P<version>[^-]+)\.dist-info$"
)
_DIST = re.compile(r"^(?P<name>[A-Za-z0-9_.]+)-(?P<version>[^-]+)\.dist-info$")
_VERSION_KEYS = {"__version__": "version", "cuda": "cuda", "hip": "hip", "git_version": "git"}


@dataclass(frozen=True)
class TorchFiles:
    """What the installed torch says about itself, read from files."""

    path: Path
    version: str | None
    cuda: str | None
    hip: str | None
    git_version: str | None
    from_conda: bool


def parse_version_py(text: str) -> dict[str, str | None]:
    """Constant assignments of torch/version.py (`__version__`, `cuda`, `hip`, `git_version`)."""
    found: dict[str, str | None] = {}
    for node in ast.parse(text).body:
        target: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if (
            isinstance(target, ast.Name)
            and target.id in _VERSION_KEYS
            and isinstance(value, ast.Constant)
            and (value.value is None or isinstance(value.value, str))
        ):
            found[_VERSION_KEYS[target.id]] = value.value
    return found


def find_torch(site_dirs: Sequence[Path], conda_prefix: Path | None) -> TorchFiles | None:
    """The torch package an import would pick: the first sys.path entry that holds one."""
    for site in site_dirs:
        package = site / "torch"
        if not (package / "__init__.py").is_file():
            continue
        try:
            info = parse_version_py((package / "version.py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            info = {}
        version = info.get("version") or _dist_version(site, "torch")
        from_conda = (
            conda_prefix is not None
            and _under(package, conda_prefix)
            and any((conda_prefix / "conda-meta").glob("pytorch-*.json"))
        )
        return TorchFiles(
            path=package,
            version=version,
            cuda=info.get("cuda"),
            hip=info.get("hip"),
            git_version=info.get("git"),
            from_conda=from_conda,
        )
    return None


def build_tag(torch: TorchFiles) -> str | None:
    """'cu121', 'cpu', 'rocm6.0': the wheel tag, else derived from version.py (see build_tags)."""
    return build_tags.build_tag(torch.version, torch.cuda, torch.hip)


def _under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    return True


def _dist_version(site: Path, name: str) -> str | None:
    for entry in sorted(_listdir(site)):
        match = _DIST.match(entry)
        if match and match["name"].lower() == name:
            return match["version"]
    return None


def _listdir(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


_SHARED_LIB_DIR = re.compile(r"^cu\d+$")


def _wheel_lib_dir(site: Path, component: str, shared: list[Path]) -> Path:
    """Where a wheel's library lives: `nvidia/<component>/lib`, or for the CUDA 13 wheels the
    directory they share (`nvidia/cu13/lib`) when it holds the component's library."""
    own = site / "nvidia" / component / "lib"
    if not shared or own.is_dir():
        return own
    stem = COMPONENTS[component]
    for directory in shared:
        if any(name.startswith(stem + ".") for name in _listdir(directory)):
            return directory
    return own


def wheel_copies(site: Path) -> dict[str, LibraryCopy]:
    """nvidia-* and triton wheels installed in one site directory, by component."""
    copies: dict[str, LibraryCopy] = {}
    shared = [
        site / "nvidia" / name / "lib"
        for name in sorted(_listdir(site / "nvidia"))
        if _SHARED_LIB_DIR.match(name)
    ]
    for entry in sorted(_listdir(site)):
        match = _NVIDIA_DIST.match(entry)
        if match and match["component"] in COMPONENTS:
            component = match["component"]
            package = entry.split("-", 1)[0].replace("_", "-")
            copies.setdefault(
                component,
                LibraryCopy(
                    source="wheel",
                    version=match["version"],
                    package=package,
                    path=str(_wheel_lib_dir(site, component, shared)),
                ),
            )
            continue
        match = _DIST.match(entry)
        if match and match["name"].lower() in TRITON_DISTS:
            copies.setdefault(
                "triton",
                LibraryCopy(
                    source="wheel",
                    version=match["version"],
                    package=match["name"].replace("_", "-"),
                    path=str(site / "triton"),
                ),
            )
    return copies


# One pattern for every component: `<stem>[-<8 hex>].so[.<version>]` (the hash is auditwheel's).
_STEM_COMPONENT = {stem: component for component, stem in COMPONENTS.items()}
_LIB_FILE = re.compile(
    r"^(?P<stem>"
    + "|".join(re.escape(stem) for stem in COMPONENTS.values())
    + r")(?:-[0-9a-f]{8})?\.so(?:\.(?P<version>[0-9.]+))?$"
)


def _more_specific(a: str | None, b: str | None) -> str | None:
    return b if a is None or (b is not None and len(b) > len(a)) else a


def lib_dir_copies(directory: Path, source: LibrarySource) -> dict[str, LibraryCopy]:
    """Shared libraries of the known components present in one directory.

    One pass over the names; the version is the most specific one in a file name, following a
    symlink such as libcudnn.so.9 -> libcudnn.so.9.1.0.
    """
    versions: dict[str, str | None] = {}
    for name in _listdir(directory):
        match = _LIB_FILE.match(name)
        if not match:
            continue
        version = match["version"]
        if version is not None and (directory / name).is_symlink():
            real = _LIB_FILE.match(os.path.basename(os.path.realpath(directory / name)))
            version = _more_specific(version, real["version"] if real else None)
        component = _STEM_COMPONENT[match["stem"]]
        versions[component] = _more_specific(versions.get(component), version)
    return {
        component: LibraryCopy(source=source, version=version, package=None, path=str(directory))
        for component, version in versions.items()
    }


def conda_copies(prefix: Path) -> dict[str, LibraryCopy]:
    records = conda_packages(prefix) or {}
    copies: dict[str, LibraryCopy] = {}
    for name, record in records.items():
        component = CONDA_NAMES.get(name)
        if component:
            copies[component] = LibraryCopy(
                source="conda", version=record.version, package=name, path=str(prefix / "lib")
            )
    toolkit = records.get("cudatoolkit")
    if toolkit is not None:
        for component in CUDATOOLKIT_COMPONENTS:  # a split package, when present, wins
            copies.setdefault(
                component,
                LibraryCopy(
                    source="conda",
                    version=toolkit.version,
                    package="cudatoolkit",
                    path=str(prefix / "lib"),
                ),
            )
    return copies


def loader_dirs(env: Mapping[str, str], etc: Path = Path("/etc")) -> list[Path]:
    """LD_LIBRARY_PATH, then ld.so.conf directories, then the default directories."""
    dirs = [Path(p) for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
    dirs += _ld_so_conf(etc / "ld.so.conf", depth=0)
    dirs += [Path(p) for p in DEFAULT_LIB_DIRS]
    unique: list[Path] = []
    for directory in dirs:
        if directory not in unique:
            unique.append(directory)
    return unique


def _ld_so_conf(path: Path, depth: int) -> list[Path]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    dirs: list[Path] = []
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if line.startswith("include "):
            pattern = Path(line.split(None, 1)[1].strip())
            base = pattern.parent if pattern.is_absolute() else path.parent / pattern.parent
            for included in sorted(base.glob(pattern.name)) if depth < 4 else ():
                dirs += _ld_so_conf(included, depth + 1)
        elif line:
            dirs.append(Path(line))
    return dirs


class _Scanner:
    """Reads each directory once, whichever components ask for it."""

    def __init__(self, conda_prefix: Path | None) -> None:
        self._wheels: dict[Path, dict[str, LibraryCopy]] = {}
        self._libs: dict[tuple[Path, str], dict[str, LibraryCopy]] = {}
        self.conda = conda_copies(conda_prefix) if conda_prefix is not None else {}

    def wheels(self, site: Path) -> dict[str, LibraryCopy]:
        if site not in self._wheels:
            self._wheels[site] = wheel_copies(site)
        return self._wheels[site]

    def libs(self, directory: Path, source: LibrarySource) -> dict[str, LibraryCopy]:
        key = (directory, source)
        if key not in self._libs:
            self._libs[key] = lib_dir_copies(directory, source)
        return self._libs[key]


@dataclass(frozen=True)
class _Candidate:
    copy: LibraryCopy
    why: str
    searched: bool  # False: installed but not on any path torch's loader searches.


def candidates(
    component: str,
    torch: TorchFiles | None,
    site_dirs: Sequence[Path],
    ld_path_dirs: Sequence[Path],
    system_dirs: Sequence[Path],
    scan: _Scanner,
) -> list[_Candidate]:
    """Every copy of one component, in the order torch's loader would try them."""
    found: list[_Candidate] = []

    def wheels(sites: Iterable[Path], why: str, searched: bool) -> None:
        for site in sites:
            copy = scan.wheels(site).get(component)
            if copy:
                found.append(_Candidate(copy, why, searched))

    def libdirs(dirs: Iterable[Path], source: LibrarySource, why: str) -> None:
        for directory in dirs:
            copy = scan.libs(directory, source).get(component)
            if copy:
                found.append(_Candidate(copy, f"{why} {directory}", True))

    if component == "triton":
        wheels(site_dirs, "first triton on sys.path (Python import order)", True)
        if copy := scan.conda.get("triton"):
            found.append(_Candidate(copy, "conda record", False))
        return found
    torch_site = [torch.path.parent] if torch else []
    others = [site for site in site_dirs if site not in torch_site]
    conda = scan.conda.get(component)
    torch_lib = [torch.path / "lib"] if torch else []
    if torch is not None and torch.from_conda:
        libdirs(ld_path_dirs, "system", "LD_LIBRARY_PATH entry")
        libdirs(torch_lib, "torch_lib", "bundled in")
        if conda:
            found.append(_Candidate(conda, "conda environment lib (torch's RPATH)", True))
        libdirs(system_dirs, "system", "loader default directory")
        wheels(site_dirs, "wheel not on a conda torch's search path", False)
        return found
    wheels(torch_site, "wheel next to torch (torch's RPATH $ORIGIN/../../nvidia)", True)
    libdirs(torch_lib, "torch_lib", "bundled in")
    libdirs(ld_path_dirs, "system", "LD_LIBRARY_PATH entry")
    libdirs(system_dirs, "system", "loader default directory")
    wheels(others, "wheel elsewhere on sys.path (torch's preload fallback)", True)
    if conda:
        found.append(_Candidate(conda, "conda package (its lib is not on the loader path)", False))
    return found


def library(component: str, torch: TorchFiles | None, found: list[_Candidate]) -> Library:
    copies = [c.copy for c in found]
    if component != "triton":
        if torch is None:
            return Library(
                version=None, selected=None, reason="torch is not installed", copies=copies
            )
        if torch.cuda is None:
            kind = "a ROCm" if torch.hip else "a CPU-only"
            reason = f"torch is {kind} build: it loads no CUDA libraries"
            return Library(version=None, selected=None, reason=reason, copies=copies)
    chosen = next((c for c in found if c.searched), None)
    if chosen is None:
        return Library(
            version=None,
            selected=None,
            reason="no copy on any path torch searches" if copies else "not installed",
            copies=copies,
        )
    return Library(
        version=chosen.copy.version, selected=chosen.copy, reason=chosen.why, copies=copies
    )


def read_stack(
    site_dirs: Sequence[Path],
    env: Mapping[str, str],
    conda_prefix: Path | None,
    etc: Path = Path("/etc"),
) -> CudaStackSection:
    """The section for a given sys.path, environment and conda prefix."""
    unknown: dict[str, str] = {}
    torch = find_torch(site_dirs, conda_prefix)
    if torch is None:
        unknown["torch_version"] = "torch is not installed"
    elif torch.version is None:
        unknown["torch_version"] = f"no readable version in {torch.path}"
    ld_path = [Path(p) for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
    system = [d for d in loader_dirs(env, etc) if d not in ld_path]
    scan = _Scanner(conda_prefix)
    libraries = {
        name: library(name, torch, candidates(name, torch, site_dirs, ld_path, system, scan))
        for name in (*COMPONENTS, "triton")
    }
    return CudaStackSection(
        torch_version=torch.version if torch else None,
        torch_build=build_tag(torch) if torch else None,
        torch_path=str(torch.path) if torch else None,
        torch_cuda=torch.cuda if torch else None,
        torch_hip=torch.hip if torch else None,
        torch_git_version=torch.git_version if torch else None,
        libraries=libraries,
        search_dirs=[str(d) for d in [*ld_path, *system]],
        unknown=unknown,
    )


def site_dirs_from(paths: Iterable[str], cwd: Path) -> list[Path]:
    """sys.path entries that are directories, in order ('' is the working directory)."""
    dirs: list[Path] = []
    for entry in paths:
        path = Path(entry) if entry else cwd
        if path.is_dir() and path not in dirs:
            dirs.append(path)
    return dirs


def collect(context: CaptureContext) -> CudaStackSection:
    prefix = Path(sys.prefix)
    return read_stack(
        site_dirs_from(sys.path, context.cwd),
        context.env,
        prefix if (prefix / "conda-meta").is_dir() else None,
    )


COLLECTOR = Collector(
    name="cuda_stack",
    collect=collect,
    timeout_s=5.0,
    description="torch build and CUDA libraries, from installed files",
)
