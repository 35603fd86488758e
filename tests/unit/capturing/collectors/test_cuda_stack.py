"""cuda_stack on site-packages trees laid out like real torch, nvidia-* wheels and conda envs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.capturing.collectors.cuda_stack import (
    build_tag,
    find_torch,
    loader_dirs,
    parse_version_py,
    read_stack,
)

# torch/version.py as torch 2.3.1+cu121 ships it (comment line and annotated assignments included).
VERSION_PY = """\
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda!r}
git_version = '63d5e9221bedd1546b7d364b5ce4171547db12a9'
hip: Optional[str] = {hip!r}
"""


def make_torch(site: Path, version: str, cuda: str | None, hip: str | None = None) -> Path:
    package = site / "torch"
    (package / "lib").mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    (package / "version.py").write_text(VERSION_PY.format(version=version, cuda=cuda, hip=hip))
    (package / "lib" / "libtorch_cuda.so").write_bytes(b"\x7fELF")
    dist = site / f"torch-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
    (dist / "INSTALLER").write_text("pip\n")
    return package


def make_nvidia_wheel(
    site: Path, component: str, version: str, soname: str, cu: str = "cu12"
) -> None:
    """An nvidia-<component>-<cu> wheel: nvidia/<component>/lib/<soname> plus its dist-info."""
    lib = site / "nvidia" / component / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (site / "nvidia" / "__init__.py").touch()
    (site / "nvidia" / component / "__init__.py").touch()
    (lib / soname).write_bytes(b"\x7fELF")
    name = f"nvidia_{component}_{cu}"
    dist = site / f"{name}-{version}.dist-info"
    dist.mkdir()
    project = name.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n")
    (dist / "top_level.txt").write_text("nvidia\n")


def make_system_lib(directory: Path, filename: str, links: tuple[str, ...] = ()) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / filename).write_bytes(b"\x7fELF")
    for link in links:
        (directory / link).symlink_to(filename)


def make_conda(prefix: Path, *records: str) -> None:
    meta = prefix / "conda-meta"
    meta.mkdir(parents=True, exist_ok=True)
    (meta / "history").write_text("")
    for record in records:
        (meta / f"{record}.json").write_text(json.dumps({"files": []}))


def empty_etc(tmp_path: Path) -> Path:
    etc = tmp_path / "etc"
    etc.mkdir(exist_ok=True)
    return etc


def test_pip_torch_loads_the_wheel_next_to_it(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "site-packages"
    user = tmp_path / "user-site"
    make_torch(site, "2.3.1+cu121", "12.1")
    make_nvidia_wheel(site, "cudnn", "8.9.2.26", "libcudnn.so.8")
    make_nvidia_wheel(site, "cublas", "12.1.3.1", "libcublas.so.12")
    make_nvidia_wheel(site, "nccl", "2.20.5", "libnccl.so.2")
    make_nvidia_wheel(user, "cudnn", "9.1.0.70", "libcudnn.so.9")
    system = tmp_path / "usr-lib"
    make_system_lib(system, "libcudnn.so.9.3.0", ("libcudnn.so.9",))
    section = read_stack([user, site], {"LD_LIBRARY_PATH": str(system)}, None, empty_etc(tmp_path))

    assert section.torch_version == "2.3.1+cu121"
    assert section.torch_build == "cu121"
    assert section.torch_cuda == "12.1"
    assert section.torch_path == str(site / "torch")
    cudnn = section.libraries["cudnn"]
    # Import order puts the user site first, but torch's RPATH points next to torch itself.
    assert cudnn.version == "8.9.2.26"
    assert cudnn.selected is not None and cudnn.selected.package == "nvidia-cudnn-cu12"
    assert "RPATH" in cudnn.reason
    assert [(c.source, c.version) for c in cudnn.copies] == [
        ("wheel", "8.9.2.26"),
        ("system", "9.3.0"),
        ("wheel", "9.1.0.70"),
    ]
    assert section.libraries["nccl"].version == "2.20.5"
    assert section.libraries["cublas"].version == "12.1.3.1"
    assert section.libraries["cusparse"].selected is None
    assert section.libraries["cusparse"].reason == "not installed"


def test_without_the_wheel_ld_library_path_wins(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    make_torch(site, "2.3.1+cu121", "12.1")
    system = tmp_path / "cuda" / "lib64"
    make_system_lib(system, "libcudnn.so.9.3.0", ("libcudnn.so.9", "libcudnn.so"))
    make_system_lib(system, "libcudnn_ops.so.9.3.0")
    section = read_stack([site], {"LD_LIBRARY_PATH": str(system)}, None, empty_etc(tmp_path))
    cudnn = section.libraries["cudnn"]
    assert cudnn.version == "9.3.0"
    assert cudnn.selected is not None and cudnn.selected.source == "system"
    assert "LD_LIBRARY_PATH" in cudnn.reason
    assert section.search_dirs[0] == str(system)


def test_bundled_library_in_torch_lib(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    package = make_torch(site, "1.13.1+cu117", "11.7")
    # Older wheels bundle the libraries, with a hash in the file name.
    (package / "lib" / "libcudnn-3d8c1bcb.so.8").write_bytes(b"\x7fELF")
    section = read_stack([site], {}, None, empty_etc(tmp_path))
    cudnn = section.libraries["cudnn"]
    assert cudnn.selected is not None and cudnn.selected.source == "torch_lib"
    assert cudnn.version == "8"


def test_conda_torch_prefers_ld_library_path_then_env_lib(tmp_path: Path) -> None:
    prefix = tmp_path / "conda-env"
    site = prefix / "lib" / "python3.11" / "site-packages"
    make_torch(site, "2.1.0", "12.1")
    make_conda(
        prefix,
        "pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0",
        "cudnn-8.9.2.26-cuda12_0",
        "nccl-2.18.3.1-h12f7317_0",
        "libcublas-12.1.0.26-0",
    )
    etc = empty_etc(tmp_path)
    section = read_stack([site], {}, prefix, etc)
    assert section.torch_build == "cu121"  # no local tag: derived from version.py
    cudnn = section.libraries["cudnn"]
    assert cudnn.selected is not None and cudnn.selected.source == "conda"
    assert (cudnn.version, cudnn.selected.package) == ("8.9.2.26", "cudnn")
    assert section.libraries["cublas"].version == "12.1.0.26"

    system = tmp_path / "usr-local-cuda"
    make_system_lib(system, "libcudnn.so.8.6.0", ("libcudnn.so.8",))
    section = read_stack([site], {"LD_LIBRARY_PATH": str(system)}, prefix, etc)
    assert section.libraries["cudnn"].version == "8.6.0"  # the system copy is loaded first


def test_conda_cudatoolkit_provides_the_toolkit_and_cublas(tmp_path: Path) -> None:
    # The conda records of a real torch 1.6 environment (collect_env listing in
    # aca10jl/NVIDIA_GPU_Performance_Test, Results/P2PBandwidthLatency/Workspace.md).
    prefix = tmp_path / "conda-env"
    site = prefix / "lib" / "python3.7" / "site-packages"
    make_torch(site, "1.6.0", "10.1")
    make_conda(
        prefix,
        "pytorch-1.6.0-py3.7_cuda10.1.243_cudnn7.6.3_0",
        "cudatoolkit-10.1.243-h6bb024c_0",
    )
    section = read_stack([site], {}, prefix, empty_etc(tmp_path))
    assert section.torch_build == "cu101"
    for component in ("cublas", "cuda_runtime", "cufft", "cusolver"):
        library = section.libraries[component]
        assert library.selected is not None, component
        assert (library.version, library.selected.package) == ("10.1.243", "cudatoolkit")
    assert section.libraries["nccl"].selected is None  # cudatoolkit does not ship NCCL


def test_cpu_and_rocm_builds_load_no_cuda_library(tmp_path: Path) -> None:
    site = tmp_path / "cpu"
    make_torch(site, "2.13.0+cpu", None)
    make_nvidia_wheel(site, "cudnn", "9.1.0.70", "libcudnn.so.9")
    section = read_stack([site], {}, None, empty_etc(tmp_path))
    assert section.torch_build == "cpu"
    cudnn = section.libraries["cudnn"]
    assert cudnn.selected is None and cudnn.version is None
    assert "CPU-only" in cudnn.reason
    assert cudnn.copies[0].version == "9.1.0.70"

    rocm = tmp_path / "rocm"
    make_torch(rocm, "2.4.0+rocm6.1", None, hip="6.1.40091-a8dbc0c19")
    section = read_stack([rocm], {}, None, empty_etc(tmp_path))
    assert (section.torch_build, section.torch_hip) == ("rocm6.1", "6.1.40091-a8dbc0c19")
    assert "ROCm" in section.libraries["nccl"].reason


def test_no_torch_installed(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    section = read_stack([site], {}, None, empty_etc(tmp_path))
    assert section.torch_version is None and section.torch_build is None
    assert section.unknown["torch_version"] == "torch is not installed"
    assert section.libraries["cudnn"].reason == "torch is not installed"


def test_triton_wheel_is_found(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    make_torch(site, "2.3.1+cu121", "12.1")
    (site / "triton-2.3.1.dist-info").mkdir()
    section = read_stack([site], {}, None, empty_etc(tmp_path))
    triton = section.libraries["triton"]
    assert triton.version == "2.3.1"
    assert triton.selected is not None and triton.selected.package == "triton"


def test_version_py_is_parsed_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    text = VERSION_PY.format(version="2.3.1+cu121", cuda="12.1", hip=None)
    text += f"open({str(marker)!r}, 'w').close()\n"
    assert parse_version_py(text) == {
        "version": "2.3.1+cu121",
        "cuda": "12.1",
        "git": "63d5e9221bedd1546b7d364b5ce4171547db12a9",
        "hip": None,
    }
    assert not marker.exists()


def test_build_tag_from_version_py_alone(tmp_path: Path) -> None:
    site = tmp_path / "s"
    make_torch(site, "2.3.1", "11.8")
    torch = find_torch([site], None)
    assert torch is not None and build_tag(torch) == "cu118"


def test_ld_so_conf_includes_are_followed(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    (etc / "ld.so.conf.d").mkdir(parents=True)
    (etc / "ld.so.conf").write_text("include ld.so.conf.d/*.conf\n")
    (etc / "ld.so.conf.d" / "cuda.conf").write_text(
        "# CUDA\n/usr/local/cuda-12.4/targets/x86_64-linux/lib\n"
    )
    dirs = loader_dirs({"LD_LIBRARY_PATH": "/opt/a:/opt/b"}, etc)
    assert [str(d) for d in dirs[:3]] == [
        "/opt/a",
        "/opt/b",
        "/usr/local/cuda-12.4/targets/x86_64-linux/lib",
    ]


@pytest.mark.slow
def test_real_collector_reads_sys_path_without_importing_torch(tmp_path: Path) -> None:
    # A subprocess whose sys.path starts with a fake tree: the collector must pick that torch,
    # and never import it (its __init__ raises).
    site = tmp_path / "site-packages"
    make_torch(site, "2.5.1+cu124", "12.4")
    make_nvidia_wheel(site, "cudnn", "9.1.0.70", "libcudnn.so.9")
    code = (
        "import sys, json\n"
        "from envsnap.capturing.collectors.base import CaptureContext\n"
        "from envsnap.capturing.collectors.cuda_stack import collect\n"
        "s = collect(CaptureContext.from_process())\n"
        "assert 'torch' not in sys.modules\n"
        "from envsnap.manifest.records import plain\n"
        "print(json.dumps(plain(s)))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path[1:]])}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(done.stdout)
    assert data["torch_version"] == "2.5.1+cu124"
    assert data["libraries"]["cudnn"]["version"] == "9.1.0.70"


def _cuda13_wheel(site: Path, project: str, version: str, library: str) -> None:
    """A CUDA 13 wheel: its library in the directory the cu13 wheels share."""
    lib = site / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / library).write_bytes(b"\x7fELF")
    dist = site / f"{project.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n")


def test_cuda_13_wheels_are_found_in_the_directory_they_share(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "site-packages"
    make_torch(site, "2.9.1+cu130", "13.0")
    _cuda13_wheel(site, "nvidia-cublas", "13.0.0.19", "libcublas.so.13")
    _cuda13_wheel(site, "nvidia-cudnn-cu13", "9.13.0.50", "libcudnn.so.9")
    section = read_stack([site], {}, None, empty_etc(tmp_path))
    shared = str(site / "nvidia" / "cu13" / "lib")
    for component, version in (("cublas", "13.0.0.19"), ("cudnn", "9.13.0.50")):
        selected = section.libraries[component].selected
        assert selected is not None and (selected.version, selected.path) == (version, shared)
