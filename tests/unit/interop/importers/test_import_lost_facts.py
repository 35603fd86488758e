"""Facts a collect_env report states that the import used to lose: the system section of a
macOS report, the nvcc and ROCm versions, AMD GPUs, a label glued onto the line above it."""

from __future__ import annotations

from pathlib import Path

from envsnap.diff import diff_documents
from envsnap.interop.importers import load_any
from envsnap.interop.importers.collect_env import read_collect_env
from envsnap.interop.importers.devices import from_name
from tests.helpers import FIXTURES

CORPUS = FIXTURES / "collect_env"
MACOS = CORPUS / "08_2023_torch2.1_macos_arm.txt"


def test_macos_report_keeps_its_system_section_and_an_arch_change_shows(tmp_path: Path) -> None:
    text = MACOS.read_text(encoding="utf-8")
    assert "Linux-" not in text  # no kernel anywhere in the report
    arm = load_any(str(MACOS)).to_document()
    assert arm["system"]["os"] == "Darwin" and arm["system"]["kernel"] is None
    assert arm["system"]["unknown"]["kernel"] == "not stated in collect_env report"
    intel = tmp_path / "intel.txt"
    intel.write_text(
        text.replace("(arm64)", "(x86_64)").replace("-arm64-arm-", "-x86_64-i386-"),
        encoding="utf-8",
    )
    report = diff_documents(load_any(str(intel)).to_document(), arm)
    arch = next(f for f in report.findings if f.rule == "hw.cpu-arch")
    assert (arch.a, arch.b) == ("x86_64", "arm64")


def test_an_old_linux_report_without_platform_keeps_its_system_section() -> None:
    doc = load_any(str(CORPUS / "01_2018_torch1.0_conda_ubuntu.txt")).to_document()
    assert doc["system"]["os"] == "Linux"  # "OS: Ubuntu 16.04.5 LTS" names a Linux
    assert doc["system"]["os_release"] == "Ubuntu 16.04.5 LTS"
    assert doc["system"]["cpu"]["architecture"] is None


def test_nvcc_version_reaches_cuda_stack_as_a_system_copy() -> None:
    imported = read_collect_env((CORPUS / "07_2023_torch2.0_cpu_block_8xa100.txt").read_text())
    runtime = imported.sections["cuda_stack"]["libraries"]["cuda_runtime"]
    assert {"source": "system", "version": "11.8.89", "package": "nvcc", "path": None} in runtime[
        "copies"
    ]
    assert runtime["version"] is None  # nvcc is not the libcudart torch loads
    assert "nvcc" in imported.unknown["cuda_stack"]["libraries.cuda_runtime.version"]


def test_rocm_versions_and_amd_gpu_reach_their_sections() -> None:
    imported = read_collect_env((CORPUS / "10_2024_torch2.4_rocm_mi250.txt").read_text())
    libraries = imported.sections["cuda_stack"]["libraries"]
    assert libraries["hip_runtime"]["version"] == "6.0.32830"
    assert libraries["miopen"]["version"] == "3.0.0"
    assert imported.sections["cuda_stack"]["torch_hip"] == "6.0.32830-d62f6a171"
    device = imported.sections["gpu"]["devices"]["0"]
    assert device["arch"] == "gfx90a" and device["compute_capability"] is None
    # MI250X and MI250 print one name and have 110 vs 104 compute units per die.
    assert device["sm_count"] is None


def test_amd_names_and_targets_resolve_through_the_amd_table() -> None:
    assert from_name("AMD Instinct MI300X")["sm_count"] == 304
    assert from_name("AMD Instinct MI210", "gfx90a")["arch"] == "gfx90a"
    assert from_name("AMD Radeon RX 7900 XTX")["sm_count"] == 96
    assert from_name("AMD Radeon Graphics", "gfx1100")["sm_count"] is None  # W7900, W7800...
    assert from_name("AMD Radeon Graphics", "gfx908")["sm_count"] == 120  # only the MI100


def test_a_mig_slice_has_no_full_gpu_sm_count() -> None:
    assert from_name("NVIDIA A100-SXM4-80GB")["sm_count"] == 108
    slice_ = from_name("NVIDIA A100-SXM4-80GB MIG 3g.40gb")
    assert slice_["compute_capability"] == "8.0" and slice_["sm_count"] is None


def test_a_label_glued_onto_the_line_above_is_its_own_field() -> None:
    report = CORPUS / "real" / "pytorch-139298_h100.txt"
    assert "HBM3Nvidia driver version:" in report.read_text(encoding="utf-8")
    imported = read_collect_env(report.read_text(encoding="utf-8"))
    names = {d["name"] for d in imported.sections["gpu"]["devices"].values()}
    assert names == {"NVIDIA H100 80GB HBM3"}
    assert imported.sections["gpu"]["driver_version"] == "535.216.01"


NO_TORCH_REPORT = """\
Collecting environment information...
PyTorch version: N/A
Is debug build: N/A
CUDA used to build PyTorch: Could not collect
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.6 LTS (x86_64)
GCC version: Could not collect
Clang version: Could not collect
CMake version: Could not collect
Libc version: N/A

Python version: 3.8 (64-bit runtime)
Python platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.31
Is CUDA available: N/A
CUDA runtime version: Could not collect
GPU models and configuration: Could not collect
Nvidia driver version: Could not collect
cuDNN version: {cudnn}
HIP runtime version: N/A
MIOpen runtime version: N/A

Versions of relevant libraries:
[pip3] Could not collect
[conda] Could not collect
"""


def test_a_report_without_torch_keeps_the_system_cudnn_another_framework_links(
    tmp_path: Path,
) -> None:
    """Darknet or Caffe link the system cuDNN: the files a report lists are all there is."""
    listings = {
        "7.6.5": "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5",
        "8.0.5": "Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.0.5\n"
        "/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8.0.5",
    }
    documents = []
    for version, listing in listings.items():
        path = tmp_path / f"cudnn-{version}.txt"
        path.write_text(NO_TORCH_REPORT.format(cudnn=listing), encoding="utf-8")
        document = load_any(str(path)).to_document()
        assert document["cuda_stack"]["libraries"]["cudnn"]["version"] == version
        documents.append(document)
    assert diff_documents(*documents).findings[0].rule == "stack.cudnn"


JETSON = Path(__file__).resolve().parents[3] / "field" / "collect_env"
JETSON_REPORT = JETSON / "pt-23392-mean-arm64-xavier-vs-x86.b.txt"  # posted verbatim


def test_a_report_without_an_architecture_line_names_it_through_its_cudnn_path() -> None:
    text = JETSON_REPORT.read_text(encoding="utf-8")
    assert "/usr/lib/aarch64-linux-gnu/libcudnn.so" in text and "(aarch64)" not in text
    doc = load_any(str(JETSON_REPORT)).to_document()
    assert doc["system"]["cpu"]["architecture"] == "aarch64"
    assert "cuDNN library path" in doc["imported_from"]["facts"]["machine_from"]


def test_cudnn_paths_of_two_machines_name_no_architecture(tmp_path: Path) -> None:
    text = JETSON_REPORT.read_text(encoding="utf-8").replace(
        "cuDNN version: /usr/lib/aarch64-linux-gnu/libcudnn.so.7.3.1",
        "cuDNN version: Probably one of the following:\n"
        "/usr/lib/aarch64-linux-gnu/libcudnn.so.7.3.1\n/usr/lib/x86_64-linux-gnu/libcudnn.so.7.3.1",
    )
    report = tmp_path / "mixed.txt"
    report.write_text(text, encoding="utf-8")
    doc = load_any(str(report)).to_document()
    assert doc["system"]["cpu"]["architecture"] is None
    assert "machine_from" not in doc["imported_from"]["facts"]


def test_the_gap_note_names_the_architecture_the_other_side_records(tmp_path: Path) -> None:
    text = JETSON_REPORT.read_text(encoding="utf-8")
    unstated = tmp_path / "unstated.txt"
    unstated.write_text(
        text.replace("/usr/lib/aarch64-linux-gnu/libcudnn.so.7.3.1", "Could not collect"),
        encoding="utf-8",
    )
    report = diff_documents(
        load_any(str(unstated)).to_document(), load_any(str(JETSON_REPORT)).to_document()
    )
    note = next(f for f in report.findings if f.path == "system.cpu.architecture")
    assert note.basis == "unknown"
    assert note.title.startswith("cannot compare system.cpu.architecture: not captured in A")
    assert note.title.endswith("; aarch64 in B")


def test_the_gap_note_names_a_list_the_other_side_records_as_its_items() -> None:
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    a["system"]["cpu"]["isa_flags"] = ["avx2", "avx512f"]
    b["system"]["cpu"]["isa_flags"] = None
    b["system"]["unknown"] = {"cpu.isa_flags": "not stated in collect_env report"}
    notes = [f for f in diff_documents(a, b).findings if f.path == "system.cpu.isa_flags"]
    assert notes and notes[0].title.endswith("; avx2, avx512f in A"), notes
