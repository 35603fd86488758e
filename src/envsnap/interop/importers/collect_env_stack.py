"""The torch build and the CUDA libraries a collect_env report states, as `cuda_stack` holds them.

What torch loads is known from a report only in some cases, and each is said in `reason`:

- a conda torch names its CUDA and cuDNN in its build string (`py3.7_cuda10.1.243_cudnn7.6.3_0`)
  and loads the environment's `cudatoolkit`, `cudnn` and `nccl` packages;
- a pip torch loads the `nvidia-*` wheels listed beside it (torch's RPATH, pytorch/builder#1183);
- the "cuDNN version" line lists system files, not the copy torch loads (pytorch/pytorch#78489):
  every listed file is kept as a copy, and the version is stated only when the files agree on one.

A CPU or ROCm build loads no CUDA library, said exactly as a capture says it.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from envsnap.capturing.collectors.cuda_stack import (
    COMPONENTS,
    CONDA_NAMES,
    CUDATOOLKIT_COMPONENTS,
    TorchFiles,
    library,
)
from envsnap.interop.importers.collect_env_packages import Listing
from envsnap.interop.importers.collect_env_reading import (
    COULD_NOT_COLLECT,
    NO_CUDA,
    Reading,
    is_na,
)
from envsnap.manifest import build_tags
from envsnap.manifest.records import plain
from envsnap.manifest.sections.cuda_stack import Library, LibraryCopy

_CONDA_BUILD = re.compile(r"cuda(?P<cuda>[\d.]+?)_cudnn(?P<cudnn>[\d.]+?)_\d+$")
_WHEEL = re.compile(r"^nvidia-(?P<component>[a-z-]+?)(?:-cu\d+)?$")
TRITON_NAMES = ("triton", "pytorch-triton", "pytorch-triton-rocm")
_CONDA_COMPONENT = {component: name for name, component in CONDA_NAMES.items()}
NOT_STATED = "not stated in collect_env report"
LOADER_NOT_STATED = (
    "; the report does not state LD_LIBRARY_PATH, which a conda torch searches first"
)


def _version_in(path: str) -> str | None:
    """Version from a library file name: libcudnn.so.8.9.2 -> 8.9.2, cudnn64_8.dll -> 8."""
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", name) or re.search(r"64_(\d+)\.dll$", name)
    return match.group(1) if match else None


def _directory(path: str) -> str:
    return str(PureWindowsPath(path).parent if "\\" in path else PurePosixPath(path).parent)


def _conda_torch(listing: Listing) -> tuple[str, str] | None:
    """(CUDA, cuDNN) named by a conda pytorch build string, e.g. py3.7_cuda10.1.243_cudnn7.6.3_0."""
    match = _CONDA_BUILD.search(listing.conda_build("pytorch") or "")
    return (match["cuda"], match["cudnn"]) if match else None


def torch_files(reading: Reading, listing: Listing) -> TorchFiles | None:
    """The torch build as the report states it (version, CUDA, HIP); None when not stated."""
    version = reading.stated("torch_version")
    if version is None:
        return None
    cuda = reading.stated("cuda_build")
    conda = _conda_torch(listing)
    if cuda is None and conda is not None:
        cuda = conda[0]
    return TorchFiles(
        path=Path(),
        version=version,
        cuda=cuda,
        hip=reading.stated("hip_build"),
        git_version=None,
        from_conda="pytorch" in listing.conda,
    )


def _build_known(reading: Reading, files: TorchFiles) -> bool:
    """Whether the report says enough to name the build: a wheel tag, or CUDA and HIP lines
    that state a version or "N/A" (a "Could not collect" line does not make a CPU build)."""
    parsed = build_tags.parse_torch_version(files.version or "")
    if parsed is not None and parsed.tag is not None:
        return True
    if files.cuda or files.hip:
        return True
    lines = (reading.value("cuda_build"), reading.value("hip_build"))
    return all(line is not None and is_na(line) for line in lines)


def map_build(reading: Reading, files: TorchFiles | None) -> None:
    """torch_version, torch_cuda, torch_hip and torch_build of `cuda_stack`."""
    version = reading.known("cuda_stack", "torch_version", "torch_version")
    if version is not None and is_na(version):
        version = None  # torch was not importable: stated as "N/A"
    reading.out.put("cuda_stack", "torch_version", version)
    for name, key in (("torch_cuda", "cuda_build"), ("torch_hip", "hip_build")):
        raw = reading.known("cuda_stack", name, key)  # records why when it is not stated
        reading.out.put("cuda_stack", name, None if raw is None or is_na(raw) else raw)
    if files is not None and files.cuda and reading.stated("cuda_build") is None:
        reading.out.put("cuda_stack", "torch_cuda", files.cuda)  # from the conda build string
        reading.out.unknown.get("cuda_stack", {}).pop("torch_cuda", None)
    if files is not None and _build_known(reading, files):
        reading.out.put(
            "cuda_stack", "torch_build", build_tags.build_tag(files.version, files.cuda, files.hip)
        )
    else:
        reading.out.put_unknown("cuda_stack", "torch_build")
    for name in ("torch_path", "torch_git_version"):
        reading.out.put_unknown("cuda_stack", name)
    reading.out.put("cuda_stack", "search_dirs", [])
    reading.out.note_unknown("cuda_stack", "search_dirs")


def _packaged(
    component: str, listing: Listing, files: TorchFiles
) -> tuple[LibraryCopy, str] | None:
    """The copy a conda or pip torch loads, from the packages the report lists."""
    if files.from_conda:
        name = _CONDA_COMPONENT.get(component)
        record = listing.conda.get(name) if name else None
        if record is None and component in CUDATOOLKIT_COMPONENTS:
            name, record = "cudatoolkit", listing.conda.get("cudatoolkit")
        if name and record:
            copy = LibraryCopy(source="conda", version=record[0], package=name, path=None)
            return copy, "conda environment lib (torch's RPATH)" + LOADER_NOT_STATED
        conda = _conda_torch(listing)
        if component == "cudnn" and conda is not None:
            copy = LibraryCopy(source="conda", version=conda[1], package="pytorch", path=None)
            return copy, "named in the conda pytorch build string" + LOADER_NOT_STATED
        return None
    for key, (_name, version) in listing.pip.items():
        match = _WHEEL.match(key)
        if match and match["component"].replace("-", "_") == component:
            copy = LibraryCopy(source="wheel", version=version, package=key, path=None)
            return copy, "wheel next to torch (torch's RPATH $ORIGIN/../../nvidia)"
    return None


def _triton(listing: Listing) -> tuple[LibraryCopy, str] | None:
    for key in TRITON_NAMES:
        if key in listing.pip:
            copy = LibraryCopy(source="wheel", version=listing.pip[key][1], package=key, path=None)
            return copy, "first triton on sys.path (Python import order)"
    return None


def _cudnn_files(reading: Reading) -> tuple[list[LibraryCopy], str | None]:
    """The system cuDNN files the report lists, and why there are none when it says so."""
    lines = reading.report.blocks.get("cudnn")
    if lines is None:
        return [], NOT_STATED
    first = lines[0] if lines else ""
    if first in ("", "Could not collect", "No CUDA"):
        return [], NO_CUDA if first == "No CUDA" else COULD_NOT_COLLECT
    copies: list[LibraryCopy] = []
    for path in lines:
        if path.lower().startswith("probably one of"):
            continue
        copy = LibraryCopy(
            source="system", version=_version_in(path), package=None, path=_directory(path)
        )
        if copy not in copies:
            copies.append(copy)
    return copies, None


def _one_version(copies: list[LibraryCopy]) -> LibraryCopy | None:
    """The copy naming the one version all files agree on (libcudnn.so.8 agrees with 8.9.2)."""
    versions = sorted({c.version for c in copies if c.version}, key=len, reverse=True)
    if not versions or any(not versions[0].startswith(v) for v in versions):
        return None
    return next(c for c in copies if c.version == versions[0])


def _official_pip_wheel(listing: Listing, files: TorchFiles) -> bool:
    """True when torch is a CUDA wheel from PyTorch's release or nightly builds, installed
    with pip: not conda, not a source build (a commit in its version), not an NGC build."""
    if files.from_conda or files.cuda is None or "torch" not in listing.pip:
        return False
    parsed = build_tags.parse_torch_version(files.version or "")
    return parsed is not None and parsed.commit is None and parsed.ngc_release is None


def wheel_cudnn_reason(version: str | None) -> str:
    return (
        f"torch {version} is a pip wheel: it loads the cuDNN it bundles (torch/lib) or pins "
        "(nvidia-cudnn, found through its RPATH), not the system files a report lists "
        "(pytorch/builder#1183); the report does not state which version"
    )


def _cudnn(reading: Reading, listing: Listing, files: TorchFiles | None) -> Library:
    """cuDNN from a conda or pip package torch loads, else from the system files the report
    lists; those files still count when the report states no torch (a job built on another
    framework, such as Darknet or Caffe, links the system cuDNN)."""
    system, missing = _cudnn_files(reading)
    packaged = _packaged("cudnn", listing, files) if files is not None else None
    if packaged is not None:
        copy, why = packaged
        return Library(version=copy.version, selected=copy, reason=why, copies=[copy, *system])
    if missing is None and files is not None and _official_pip_wheel(listing, files):
        reason = wheel_cudnn_reason(files.version)
        for name in ("libraries.cudnn.version", "libraries.cudnn.selected"):
            reading.out.note_unknown("cuda_stack", name, reason)
        return Library(version=None, selected=None, reason=reason, copies=system)
    if missing is not None:
        reading.out.note_unknown("cuda_stack", "libraries.cudnn", missing)
        return Library(version=None, selected=None, reason=missing, copies=[])
    single = _one_version(system)
    if single is not None:
        reason = (
            "the one cuDNN version among the system files the report lists (collect_env lists "
            "system files, not the copy torch loads: pytorch/pytorch#78489)"
        )
        return Library(version=single.version, selected=single, reason=reason, copies=system)
    versions = sorted({c.version for c in system if c.version})
    reason = (
        f"collect_env report lists {len(system)} system cuDNN file(s) of versions "
        f"{', '.join(versions) or 'unknown'}; which one torch loads is not stated"
    )
    reading.out.note_unknown("cuda_stack", "libraries.cudnn.version", reason)
    return Library(version=None, selected=None, reason=reason, copies=system)


def _library(reading: Reading, listing: Listing, files: TorchFiles | None, name: str) -> Library:
    if name == "cudnn" and (
        files is None or files.cuda is not None or not _build_known(reading, files)
    ):
        return _cudnn(reading, listing, files)
    if files is None:
        reading.out.note_unknown("cuda_stack", f"libraries.{name}")
        return Library(version=None, selected=None, reason=NOT_STATED, copies=[])
    if name != "triton" and files.cuda is None and _build_known(reading, files):
        reading.out.note_unknown("cuda_stack", f"libraries.{name}.copies")
        # A CPU or ROCm build: said as a capture says it.
        return Library.model_validate(plain(library(name, files, [])))
    packaged = _triton(listing) if name == "triton" else _packaged(name, listing, files)
    if packaged is None:
        reading.out.note_unknown("cuda_stack", f"libraries.{name}")
        return Library(version=None, selected=None, reason=NOT_STATED, copies=[])
    copy, why = packaged
    return Library(version=copy.version, selected=copy, reason=why, copies=[copy])


# collect_env's "CUDA runtime version" runs `nvcc --version` (get_running_cuda_version in
# torch/utils/collect_env.py): the system toolkit, not the libcudart torch loads.
NVCC_REASON = (
    "collect_env 'CUDA runtime version' is the system toolkit's nvcc (torch/utils/collect_env.py "
    "get_running_cuda_version), not the libcudart torch loads"
)
# "HIP runtime version" and "MIOpen runtime version" are read from torch._C._show_config(), the
# versions torch was built with (torch/utils/collect_env.py get_env_info).
ROCM_REASON = (
    f"{build_tags.BUILD_CONFIGURATION} (torch._C._show_config(), as collect_env prints it): the "
    "version the ROCm build of torch was built with and ships"
)
ROCM_LIBRARIES = (("hip_runtime", "hip_runtime"), ("miopen", "miopen"))


def _with_nvcc(reading: Reading, runtime: dict[str, Any]) -> dict[str, Any]:
    """The CUDA runtime entry, with the system toolkit's nvcc as one more (system) copy."""
    nvcc = reading.stated("cuda_runtime")
    if nvcc is None:
        return runtime
    copy = LibraryCopy(source="system", version=nvcc, package="nvcc", path=None).model_dump()
    copies = [*runtime.get("copies", []), copy]
    reading.out.unknown.get("cuda_stack", {}).pop("libraries.cuda_runtime", None)
    if runtime.get("version") is None:
        reading.out.note_unknown("cuda_stack", "libraries.cuda_runtime.version", NVCC_REASON)
    return {**runtime, "copies": copies}


def _rocm_library(reading: Reading, key: str) -> dict[str, Any] | None:
    """HIP runtime or MIOpen of a ROCm build, as its build configuration states them."""
    version = reading.stated(key)
    if version is None:
        return None
    # Which file holds it is not printed: no copy is named.
    return Library(version=version, selected=None, reason=ROCM_REASON, copies=[]).model_dump()


def map_libraries(reading: Reading, listing: Listing, files: TorchFiles | None) -> None:
    """Every library a capture records, with what the report says about it; the nvcc, HIP
    runtime and MIOpen versions a report prints join them."""
    libraries: dict[str, Any] = {
        name: _library(reading, listing, files, name).model_dump()
        for name in (*COMPONENTS, "triton")
    }
    libraries["cuda_runtime"] = _with_nvcc(reading, libraries["cuda_runtime"])
    for name, key in ROCM_LIBRARIES:
        entry = _rocm_library(reading, key)
        if entry is not None:
            libraries[name] = entry
    reading.out.put("cuda_stack", "libraries", libraries)
