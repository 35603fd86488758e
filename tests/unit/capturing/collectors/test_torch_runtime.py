"""The torch collector with real torch on CPU, in subprocesses so flags never leak between tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.capturing.collectors.torch_runtime import import_torch, parse_config
from envsnap.capturing.config import CaptureConfig
from tests import helpers

pytest.importorskip("torch")

REPO = helpers.REPO_ROOT


def run_python(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run code in a fresh interpreter; it prints one JSON document last."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_flags_toggled_in_the_job_are_recorded_exactly() -> None:
    data = run_python(
        """
        import json, torch
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.enabled = False
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
        torch.backends.cuda.enable_flash_sdp(False)
        torch.backends.cuda.enable_math_sdp(False)
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.set_num_threads(1)
        torch.set_default_dtype(torch.float64)
        torch.set_float32_matmul_precision("medium")
        import envsnap
        m = envsnap.capture(only=["torch"])
        print(json.dumps({"torch": m.torch.model_dump(mode="json"),
                          "status": m.collectors["torch"].status,
                          "init": torch.cuda.is_initialized()}))
        """
    )
    assert data["status"] == "ok"
    section = data["torch"]
    assert section["imported_by"] == "job"
    assert section["cudnn"]["benchmark"] is True
    assert section["cudnn"]["deterministic"] is True
    assert section["cudnn"]["enabled"] is False
    assert section["matmul"]["allow_bf16_reduced_precision_reduction"] == "False"
    assert section["matmul"]["float32_matmul_precision"] == "medium"
    # torch 2.9+ maps "medium" onto the new API: TF32 for CUDA matmul, bf16 for oneDNN.
    assert section["fp32_precision"]["cuda.matmul"] == "tf32"
    assert section["fp32_precision"]["mkldnn.matmul"] == "bf16"
    assert section["sdpa"]["flash"] is False and section["sdpa"]["math"] is False
    assert section["sdpa"]["mem_efficient"] is True
    assert section["deterministic"]["algorithms"] is True
    assert section["deterministic"]["warn_only"] is True
    assert section["deterministic"]["debug_mode"] == 1
    assert section["num_threads"] == 1
    assert section["default_dtype"] == "torch.float64"
    assert data["init"] is False


@pytest.mark.slow
def test_defaults_and_mixed_api_are_recorded() -> None:
    data = run_python(
        """
        import json, torch
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cuda.matmul.fp32_precision = "ieee"   # mixing the two APIs
        from envsnap.capturing.collectors.base import CaptureContext
        from envsnap.capturing.collectors.torch_runtime import read_torch
        from envsnap.manifest.records import plain
        s = read_torch(torch, {}, "job")
        print(json.dumps(plain(s)))
        """
    )
    # torch refuses to answer the legacy flag after the APIs were mixed: null plus the reason.
    assert data["matmul"]["allow_tf32"] is None
    assert "RuntimeError" in data["unknown"]["matmul.allow_tf32"]
    assert data["fp32_precision"]["cuda.matmul"] == "ieee"
    assert data["cudnn"]["benchmark"] is False
    assert data["cuda_initialized"] is False
    assert data["cuda_available"] is None
    assert "would initialise" in data["unknown"]["cuda_available"]
    assert data["build"]["settings"]["USE_CUDA"] in ("0", "1", "ON", "OFF")
    assert data["cpu_capability"]


@pytest.mark.slow
def test_cuda_state_is_untouched_and_effective_uses_nvml(tmp_path: Path) -> None:
    # A CUDA-capable view of the world (fake NVML: one A100) with the real CPU torch: CUDA stays
    # uninitialised, and the effective precision reflects the CPU build.
    data = run_python(
        """
        import json, sys, torch
        from tests.fixtures.nvml.fake_nvml import FakeNvml
        sys.modules["pynvml"] = FakeNvml(["a100"])
        before = torch.cuda.is_initialized()
        import envsnap
        m = envsnap.capture(only=["gpu", "torch"])
        print(json.dumps({"before": before, "after": torch.cuda.is_initialized(),
                          "gpu": m.gpu.devices["0"].name,
                          "effective": m.torch.effective.model_dump(mode="json")}))
        """,
        env={"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"},
    )
    assert data["before"] is False and data["after"] is False
    assert data["gpu"] == "NVIDIA A100-SXM4-80GB"
    assert data["effective"]["overrides"] == {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}
    # This torch has no CUDA, so nothing runs on TF32 whatever the GPU and override say.
    assert data["effective"]["matmul_fp32"]["tf32"] == "no"


@pytest.mark.slow
def test_not_imported_and_not_asked_is_skipped(tmp_path: Path) -> None:
    data = run_python(
        """
        import json, sys
        import envsnap
        m = envsnap.capture(only=["torch", "cuda_stack"])
        print(json.dumps({"rec": m.collectors["torch"].model_dump(mode="json"),
                          "imported": "torch" in sys.modules,
                          "stack": m.cuda_stack.torch_version}))
        """
    )
    assert data["rec"]["status"] == "skipped"
    assert "--torch" in data["rec"]["reason"]
    assert data["imported"] is False
    assert data["stack"]  # cuda_stack still reports the installed torch, read from files


@pytest.mark.slow
def test_torch_not_installed_is_skipped_and_says_so(tmp_path: Path) -> None:
    data = run_python(
        """
        import json, sys
        sys.modules["torch"] = None     # as if torch were not installed: import raises
        from envsnap.capturing.run import capture_process
        from envsnap.capturing.config import CaptureConfig
        m = capture_process(config=CaptureConfig(import_torch=True), only=["torch", "gpu"])
        print(json.dumps({k: v.model_dump(mode="json") for k, v in m.collectors.items()}))
        """
    )
    assert data["torch"]["status"] == "skipped"
    assert "not installed" in data["torch"]["reason"]


@pytest.mark.slow
def test_cli_torch_flag_imports_torch(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    # A generous budget: a cold `import torch` on a loaded machine can take tens of seconds.
    argv = ["capture", "--torch", "--only", "torch", "--budget", "300", "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", *argv],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads(out.read_text())
    assert manifest["torch"]["imported_by"] == "envsnap"
    assert manifest["torch"]["cuda_initialized"] is False


def test_import_torch_refuses_without_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setitem(sys.modules, "torch", None)
    context = CaptureContext(env={}, cwd=tmp_path, config=CaptureConfig(import_torch=True))
    with pytest.raises(CollectorUnavailable, match="not installed"):
        import_torch(context)


def test_parse_config_text() -> None:
    text = (
        "PyTorch built with:\n"
        "  - Intel(R) MKL-DNN v3.4.2 (Git Hash 1137e04ec0b5251ca2b4400a4fd3c667ce843d67)\n"
        "  - OpenMP 201511 (a.k.a. OpenMP 4.5)\n"
        "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=12.1, "
        "CUDNN_VERSION=8.9.2, CXX_FLAGS= -D_GLIBCXX_USE_CXX11_ABI=0 -O2, LAPACK_INFO=mkl, "
        "USE_CUDA=ON, USE_NCCL=1, \n"
    )
    settings, onednn, openmp = parse_config(text)
    assert settings["CUDA_VERSION"] == "12.1"
    assert settings["CUDNN_VERSION"] == "8.9.2"
    assert settings["LAPACK_INFO"] == "mkl"
    assert settings["USE_NCCL"] == "1"
    assert (onednn, openmp) == ("3.4.2", "201511")
