"""collect_env imports keep what real reports state, in the shape a capture writes.

Each test reads a report posted in a public thread (tests/fixtures/collect_env/real, sources in
sources.json) or the fixture corpus next to it, or this machine's own collect_env output.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.diff import diff_manifests
from envsnap.diff.report import Target
from envsnap.interop.importers import import_record
from envsnap.interop.importers.collect_env import parse_report
from envsnap.interop.importers.collect_env_packages import parse_listing
from envsnap.manifest.model import Manifest, load
from envsnap.render.summary import render_summary
from tests import helpers

CORPUS = helpers.FIXTURES / "collect_env"
REAL = CORPUS / "real"
EVERY_REPORT = sorted([*CORPUS.glob("*.txt"), *REAL.glob("*.txt")])
V100_CONDA = REAL / "gpu-perf-test_2020_v100_conda_cudatoolkit.txt"
SOURCE_BUILD = REAL / "gpu-perf-test_2020_rtx3090_source_build.txt"
CANDIDATES_2019 = REAL / "mmf-153_2019_rtx2080ti_cudnn_candidates.txt"
TITAN_XP = REAL / "pytorch-52515_titan_xp.txt"
# Bitwise counts every value one side lacks as a difference; the default and the conclusion
# targets rank what the record format cannot state as low.
TARGETS: tuple[Target, ...] = ("close", "conclusion")


def imported(path: Path) -> Manifest:
    return import_record(path, "collect-env")


def test_packages_section_is_built_from_the_listing() -> None:
    manifest = imported(V100_CONDA)
    assert manifest.collectors["packages"].status == "ok"
    assert manifest.packages is not None
    installed = manifest.packages.installed
    assert (installed["torch"].version, installed["numpy"].version) == ("1.6.0", "1.18.1")
    assert installed["torch"].source is None  # the listing does not say where it came from
    assert "installed.torch.source" in manifest.packages.unknown
    assert manifest.packages.conda is not None
    assert manifest.packages.conda["cudatoolkit"].version == "10.1.243"
    assert manifest.packages.conda["pytorch"].build == "py3.7_cuda10.1.243_cudnn7.6.3_0"


def test_torch_version_change_between_reports_is_a_torch_finding() -> None:
    report = diff_manifests(imported(V100_CONDA), imported(SOURCE_BUILD))
    torch = [f for f in report.findings if f.rule == "stack.torch"]
    assert torch and (torch[0].a, torch[0].b) == ("1.6.0", "1.8.0a0")
    assert torch[0].severity != "low"
    assert any(f.rule == "stack.numpy" for f in report.findings)
    assert not any(f.path.startswith("extra") for f in report.findings)


def test_legacy_pip_listing_is_read() -> None:
    # The 2018 script listed packages with `pip list --format=legacy`: `name (version)`.
    lines = [("pip", "numpy (1.15.4)"), ("pip", "torch (1.0.0)"), ("pip3", "torchvision (0.2.1)")]
    listing = parse_listing(lines)
    assert listing.pip == {
        "numpy": ("numpy", "1.15.4"),
        "torch": ("torch", "1.0.0"),
        "torchvision": ("torchvision", "0.2.1"),
    }
    # Conda's listing of pip installs (build pypi_0) is a pip package, not a conda record.
    text = SOURCE_BUILD.read_text(encoding="utf-8")
    listing = parse_listing(parse_report(text).packages)
    assert listing.pip["torchvision"] == ("torchvision", "0.8.0a0+3756b60")
    assert "torch" not in listing.conda and "numpy" in listing.conda


def test_conda_build_string_names_the_cudnn_torch_loads_and_cudatoolkit_its_cublas() -> None:
    stack = imported(V100_CONDA).cuda_stack
    assert stack is not None
    assert stack.torch_build == "cu101"
    cudnn = stack.libraries["cudnn"]
    assert cudnn.version == "7.6.3"
    assert cudnn.selected is not None and cudnn.selected.source == "conda"
    # The system files the report lists are kept as candidates.
    assert {c.version for c in cudnn.copies if c.source == "system"} == {"6.0.21", "7.6.4"}
    cublas = stack.libraries["cublas"]
    assert cublas.selected is not None and cublas.selected.package == "cudatoolkit"
    assert cublas.version == "10.1.243"
    assert stack.libraries["cuda_runtime"].version == "10.1.243"


def test_cudnn_candidates_are_recorded_without_picking_one() -> None:
    stack = imported(CANDIDATES_2019).cuda_stack
    assert stack is not None
    cudnn = stack.libraries["cudnn"]
    assert cudnn.version is None and cudnn.selected is None
    assert {c.version for c in cudnn.copies} >= {"7.5.0", "7.6.1", "7.3.0"}
    assert "7.3.0, 7.5.0, 7.6.1" in cudnn.reason
    assert stack.torch_build == "cu90"  # CUDA 9.0.176, not cu90176


def test_a_stated_cudnn_version_change_is_ranked(tmp_path: Path) -> None:
    # pytorch/pytorch#105941: cuDNN 8.0.5 -> 8.2.1 changed results. One real report, the
    # cuDNN line as two machines print it, torch a source build (a pip wheel would load the
    # cuDNN it bundles, not the system file; a source build links the system one).
    text = (CORPUS / "03_2019_torch1.3_multi_gpu_pip3.txt").read_text(encoding="utf-8")
    assert "libcudnn.so.7.6.5" in text
    text = text.replace("1.3.1", "1.3.0a0+ee77ccb")

    def with_cudnn(version: str) -> Manifest:
        path = tmp_path / f"cudnn-{version}.txt"
        path.write_text(text.replace("libcudnn.so.7.6.5", f"libcudnn.so.{version}"))
        return imported(path)

    report = diff_manifests(with_cudnn("8.0.5"), with_cudnn("8.2.1"))
    cudnn = [f for f in report.findings if f.rule == "stack.cudnn"]
    assert cudnn and cudnn[0].severity in ("medium", "high", "critical")
    assert cudnn[0].a == "8.0.5" and cudnn[0].b == "8.2.1"


@pytest.mark.parametrize(
    ("report", "build"),
    [
        (SOURCE_BUILD, "cu111"),  # 1.8.0a0+13decdd: the local part is a commit
        (V100_CONDA, "cu101"),
        (CORPUS / "10_2024_torch2.4_rocm_mi250.txt", None),
    ],
)
def test_build_tags_of_real_reports(report: Path, build: str | None) -> None:
    stack = imported(report).cuda_stack
    assert stack is not None
    if build is None:
        assert stack.torch_build is not None and stack.torch_build.startswith("rocm")
        assert "ROCm" in stack.libraries["cudnn"].reason
    else:
        assert stack.torch_build == build


def test_is_cuda_available_and_rocm_runtime_are_kept_with_the_record() -> None:
    manifest = imported(CORPUS / "10_2024_torch2.4_rocm_mi250.txt")
    assert manifest.imported_from is not None
    torch = manifest.imported_from.sections["torch"]
    assert torch["cuda_available"] is True and torch["hip"]
    assert manifest.imported_from.facts["hip_runtime_version"]
    assert manifest.imported_from.facts["miopen_version"]
    assert "imported_facts" not in manifest.extra and "imported_sections" not in manifest.extra


def test_titan_xp_report_gets_its_architecture_and_sm_count() -> None:
    gpu = imported(TITAN_XP).gpu
    assert gpu is not None
    device = gpu.devices["0"]
    assert (device.compute_capability, device.arch, device.sm_count) == ("6.1", "Pascal", 30)


@pytest.mark.parametrize("report", EVERY_REPORT, ids=lambda p: p.name)
def test_show_never_prints_none(report: Path) -> None:
    text = render_summary(imported(report), color=False)
    assert re.search(r"\bNone\b", text) is None, text


# --- an import of this machine against a capture of this machine ---------------------------


@pytest.mark.slow
def test_import_of_this_machine_vs_its_capture_has_nothing_above_low(
    real_report: Path, tmp_path: Path
) -> None:
    native = tmp_path / "native.json"
    subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "--torch", "-o", str(native)],
        capture_output=True,
        timeout=300,
        check=True,
    )
    a, b = imported(real_report), load(native)
    for target in TARGETS:
        findings = diff_manifests(a, b, target=target).findings
        above = [f"{f.severity} {f.path}: {f.title}" for f in findings]
        above = [line for line in above if not line.startswith(("low", "info"))]
        assert above == [], json.dumps(above, indent=1)
    assert a.packages is not None and b.packages is not None
    assert a.packages.installed["torch"].version == b.packages.installed["torch"].version
    assert a.cuda_stack is not None and b.cuda_stack is not None
    assert a.cuda_stack.torch_build == b.cuda_stack.torch_build
    assert re.search(r"\bNone\b", render_summary(a, color=False)) is None


def test_entries_a_report_does_not_list_are_not_stated_not_added() -> None:
    # collect_env lists only some packages and two variables; what the other side has beyond
    # them is "not stated in A's collect_env report", not a package or variable added.
    a = imported(CORPUS / "12_2025_torch2.7_allocator_h100.txt")
    assert a.env is not None and a.packages is not None
    document = a.to_document()
    document["imported_from"] = None
    document["env"]["variables"]["TORCHINDUCTOR_CACHE_DIR"] = "/var/cache/inductor"
    document["packages"]["installed"]["click"] = {
        "name": "click",
        "version": "8.1.7",
        "installer": "pip",
        "source": "index",
    }
    b = Manifest.model_validate(document)
    findings = {f.path: f for f in diff_manifests(a, b).findings}
    for path in ("env.variables.TORCHINDUCTOR_CACHE_DIR", "packages.installed.click"):
        assert findings[path].rule == "uncaptured", path
        assert findings[path].severity == "low"
        assert "collect_env report" in findings[path].title
    # The same entry added between two captures is still an ordinary finding.
    plain = Manifest.model_validate({**document, "env": {**document["env"], "unknown": {}}})
    del document["env"]["variables"]["TORCHINDUCTOR_CACHE_DIR"]
    base = Manifest.model_validate({**document, "env": {**document["env"], "unknown": {}}})
    added = {f.path: f for f in diff_manifests(base, plain).findings}
    assert added["env.variables.TORCHINDUCTOR_CACHE_DIR"].rule != "uncaptured"
