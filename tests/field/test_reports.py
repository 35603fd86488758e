"""The report writer prints what each release's collect_env.py printed.

Facts are read by hand from real reports (tests/fixtures/collect_env/real/, where each was
posted is in sources.json; and the project's older fixtures), rendered with the release whose
script printed them (the script of the day the report was posted), and compared line by line.
A report posted cut short is compared up to where the thread's copy ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envsnap.interop.importers import import_record
from tests.field.reports import RELEASES, render
from tests.helpers.importers import stated

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "collect_env"
REAL = FIXTURES / "real"

# (file, release, facts, whether the thread's copy is cut short)
REAL_REPORTS: list[tuple[Path, str, dict[str, Any], bool]] = [
    (
        FIXTURES / "01_2018_torch1.0_conda_ubuntu.txt",
        "1.0",
        {
            "torch": "1.0.0",
            "debug": False,
            "cuda_build": "9.0.176",
            "os": "Ubuntu 16.04.5 LTS",
            "gcc": "(Ubuntu 5.4.0-6ubuntu1~16.04.10) 5.4.0 20160609",
            "cmake": "version 3.5.1",
            "python": "3.6",
            "cuda_available": True,
            "cuda_runtime": "9.0.176",
            "gpus": ["GeForce GTX 1080 Ti"],
            "driver": "390.77",
            "cudnn": [
                "/usr/local/cuda-9.0/lib64/libcudnn.so.7.0.5",
                "/usr/local/cuda-9.0/lib64/libcudnn_static.a",
            ],
            "conda": {
                "cuda90": ["1.0", "h6433d27_0", "pytorch"],
                "pytorch": ["1.0.0", "py3.6_cuda9.0.176_cudnn7.4.1_1", "pytorch"],
                "torchvision": ["0.2.1", "py_2", "pytorch"],
            },
        },
        False,
    ),
    (
        FIXTURES / "02_2019_torch1.1_cpu_pip_yes_no.txt",
        "1.1",
        {
            "torch": "1.1.0",
            "debug": False,
            "cuda_build": None,
            "os": "CentOS Linux 7 (Core)",
            "gcc": "(GCC) 4.8.5 20150623 (Red Hat 4.8.5-36)",
            "python": "2.7",
            "cuda_available": False,
            "pip_tag": "pip",
            "pip": {"numpy": "1.16.4", "torch": "1.1.0"},
        },
        False,
    ),
    (
        REAL / "gpu-perf-test_2020_v100_conda_cudatoolkit.txt",
        "1.7",
        {
            "torch": "1.6.0",
            "debug": False,
            "cuda_build": "10.1",
            "os": "Ubuntu 18.04.4 LTS (x86_64)",
            "gcc": "(Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0",
            "cmake": "version 3.10.2",
            "python": "3.7",
            "cuda_available": True,
            "cuda_runtime": "10.1.168",
            "gpus": ["Tesla V100-SXM2-16GB"] * 8,
            "driver": "418.126.02",
            "cudnn": [
                "/usr/lib/x86_64-linux-gnu/libcudnn.so.6.0.21",
                "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.4",
            ],
            "pip_tag": "pip",
            "pip": {"numpy": "1.18.1", "torch": "1.6.0", "torchvision": "0.7.0"},
            "conda": {
                "blas": ["1.0", "mkl"],
                "cudatoolkit": ["10.1.243", "h6bb024c_0"],
                "mkl": ["2020.0", "166"],
                "mkl-service": ["2.3.0", "py37he904b0f_0"],
                "mkl_fft": ["1.0.15", "py37ha843d7b_0"],
                "mkl_random": ["1.1.0", "py37hd6b4f25_0"],
                "numpy": ["1.18.1", "py37h4f9e942_0"],
                "numpy-base": ["1.18.1", "py37hde5b4d6_1"],
                "pytorch": ["1.6.0", "py3.7_cuda10.1.243_cudnn7.6.3_0", "pytorch"],
                "torchvision": ["0.7.0", "py37_cu101", "pytorch"],
            },
        },
        False,
    ),
    (
        REAL / "pytorch-52515_titan_xp.txt",
        "1.8",
        {
            "torch": "1.7.1",
            "debug": False,
            "cuda_build": "11.0",
            "os": "Ubuntu 18.04.5 LTS (x86_64)",
            "gcc": "(Ubuntu 8.4.0-1ubuntu1~18.04) 8.4.0",
            "cmake": "version 3.19.0-rc1",
            "python": "3.8",
            "cuda_available": True,
            "cuda_runtime": "11.0.194",
            "gpus": ["TITAN Xp", "TITAN Xp"],
            "driver": "450.51.05",
            "cudnn": ["/usr/local/cuda-10.1/targets/x86_64-linux/lib/libcudnn.so.7"],
            "pip": {"numpy": "1.19.2", "torch": "1.7.1"},
            "conda": {"blas": ["1.0", "mkl"]},
        },
        False,
    ),
    (
        REAL / "pytorch-87992_v100.txt",
        "1.13",
        {
            "torch": "1.12.1+cu113",
            "debug": False,
            "cuda_build": "11.3",
            "os": "Debian GNU/Linux 10 (buster) (x86_64)",
            "gcc": "(Debian 8.3.0-6) 8.3.0",
            "cmake": "version 3.13.4",
            "libc": "glibc-2.10",
            "python": "3.7.12 | packaged by conda-forge | (default, Oct 26 2021, 06:08:53)  "
            "[GCC 9.4.0]",
            "platform": "Linux-4.19.0-18-cloud-amd64-x86_64-with-debian-10.13",
            "cuda_available": True,
            "cuda_runtime": "11.0.221",
            "cuda_module_loading": "",
            "gpus": ["Tesla V100-SXM2-16GB"],
            "driver": "460.73.01",
            "xnnpack": True,
            "pip": {
                "mypy-extensions": "0.4.3",
                "numpy": "1.21.6",
                "pytorch-lightning": "1.7.7",
                "torch": "1.12.1+cu113",
                "torchaudio": "0.12.1+cu113",
                "torchmetrics": "0.10.1",
                "torchvision": "0.13.1+cu113",
            },
            "conda": {
                "blas": ["2.113", "mkl", "conda-forge"],
                "blas-devel": ["3.9.0", "13_linux64_mkl", "conda-forge"],
                "cudatoolkit": ["11.1.1", "h6406543_10", "conda-forge"],
            },
        },
        True,
    ),
    (
        REAL / "pytorch-97097_rtx2070s.txt",
        "2.0",
        {
            "torch": "2.0.0",
            "debug": False,
            "cuda_build": "11.7",
            "os": "Ubuntu 22.04.2 LTS (x86_64)",
            "gcc": "(Ubuntu 11.3.0-1ubuntu1~22.04) 11.3.0",
            "libc": "glibc-2.35",
            "python": "3.10.9 (main, Mar  8 2023, 10:47:38) [GCC 11.2.0]",
            "platform": "Linux-5.19.0-35-generic-x86_64-with-glibc2.35",
            "cuda_available": True,
            "cuda_module_loading": "LAZY",
            "gpus": ["NVIDIA GeForce RTX 2070 SUPER"],
            "driver": "470.161.03",
            "xnnpack": True,
            "cpu": {
                "lines": [
                    ("Architecture:", "x86_64"),
                    ("CPU op-mode(s):", "32-bit, 64-bit"),
                    ("Address sizes:", "39 bits physical, 48 bits virtual"),
                    ("Byte Order:", "Little Endian"),
                    ("CPU(s):", "6"),
                    ("On-line CPU(s) list:", "0-5"),
                    ("Vendor ID:", "GenuineIntel"),
                    ("Model name:", "Intel(R) Core(TM) i5-8400 CPU @ 2.80GHz"),
                    ("CPU family:", "6"),
                    ("Model:", "158"),
                    ("Thread(s) per core:", "1"),
                    ("Core(s) per socket:", "6"),
                ]
            },
        },
        True,
    ),
    (
        REAL / "pytorch-158398_rtx3060.txt",
        "2.8",
        {
            "torch": "2.7.1+cu126",
            "debug": False,
            "cuda_build": "12.6",
            "os": "Ubuntu 24.04.2 LTS (x86_64)",
            "gcc": "(Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0",
            "libc": "glibc-2.39",
            "python": "3.10.18 (main, Jun  5 2025, 13:14:17) [GCC 11.2.0]",
            "platform": "Linux-6.11.0-29-generic-x86_64-with-glibc2.39",
            "cuda_available": True,
            "cuda_module_loading": "LAZY",
            "gpus": ["NVIDIA GeForce RTX 3060"],
            "driver": "575.57.08",
            "xpu_available": False,
            "xnnpack": True,
            "cpu": {
                "arch": "x86_64",
                "cpus": 16,
                "vendor": "GenuineIntel",
                "model": "11th Gen Intel(R) Core(TM) i7-11700 @ 2.50GHz",
            },
        },
        True,
    ),
]


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    return [line for line in lines if line != "Collecting environment information..."]


@pytest.mark.parametrize(
    ("path", "release", "facts", "cut"), REAL_REPORTS, ids=[r[0].name for r in REAL_REPORTS]
)
def test_rendered_report_matches_the_real_one(
    path: Path, release: str, facts: dict[str, Any], cut: bool
) -> None:
    real = _lines(path.read_text(encoding="utf-8"))
    rendered = _lines(render(release, facts))
    if cut:
        rendered = rendered[: len(real)]
    if facts.get("cpu") and "lines" not in facts["cpu"]:
        # Only the lscpu lines the facts state are rendered: compare those, in order.
        start = real.index("CPU:") + 1
        covered = {line.split(":")[0] for line in rendered[start:]}
        real = real[:start] + [line for line in real[start:] if line.split(":")[0] in covered]
        rendered = rendered[: len(real)]
    assert rendered == real


def test_old_releases_print_yes_no_and_no_rocm_or_libc_lines() -> None:
    facts = {"torch": "1.4.0", "debug": False, "cuda_available": True, "libc": "glibc-2.27"}
    text = render("1.4", facts)
    assert "Is CUDA available: Yes" in text
    assert "Is debug build: No" in text
    assert "ROCM used to build" not in text
    assert "Libc version" not in text
    assert "CPU:" not in text


def test_a_machine_without_cuda_prints_no_cuda() -> None:
    text = render("2.13", {"torch": "2.13.0+cpu", "cuda_build": None, "cuda_available": False})
    for label in ("CUDA runtime version", "Nvidia driver version", "cuDNN version"):
        assert f"{label}: No CUDA" in text
    assert "CUDA used to build PyTorch: None" in text
    assert "Caching allocator config: N/A" in text


def test_legacy_pip_format_before_1_1() -> None:
    assert "[pip] numpy (1.14.3)" in render("0.4", {"pip": {"numpy": "1.14.3"}})
    assert "[pip3] numpy==1.14.3" in render("1.2", {"pip": {"numpy": "1.14.3"}})


def test_unknown_facts_and_releases_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown facts"):
        render("2.0", {"gpu": "A100"})
    with pytest.raises(ValueError, match="unknown release"):
        render("3.0", {})


@pytest.mark.parametrize("release", RELEASES)
def test_every_release_renders_a_report_the_importer_reads(release: str, tmp_path: Path) -> None:
    facts = {
        "torch": "1.10.1+cu111",
        "cuda_build": "11.1",
        "os": "Ubuntu 20.04.3 LTS (x86_64)",
        "python": "3.8.12",
        "cuda_available": True,
        "cuda_runtime": "11.1.105",
        "gpus": ["NVIDIA A40", "NVIDIA A40"],
        "driver": "470.82.01",
        "cudnn": "8005",
        "cpu": {"arch": "x86_64", "model": "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"},
        "pip": {"numpy": "1.21.2", "torch": "1.10.1+cu111"},
    }
    path = tmp_path / "report.txt"
    path.write_text(render(release, facts), encoding="utf-8")
    manifest = import_record(path, "collect-env")
    assert stated(manifest, "cuda_stack", "torch_version") == "1.10.1+cu111"
    assert stated(manifest, "gpu", "devices.1.name") == "NVIDIA A40"
    assert stated(manifest, "gpu", "driver_version") == "470.82.01"
    assert stated(manifest, "packages", "installed.numpy.version") == "1.21.2"
