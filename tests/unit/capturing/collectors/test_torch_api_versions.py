"""The torch and precision collectors against module stand-ins shaped like torch 1.13 and 2.0.

The current API is exercised with the real torch in test_torch_runtime.py. These stand-ins carry
only the attributes those releases have (no SDPA before 2.0; no cuDNN attention,
torch.utils.deterministic or fp32_precision in 2.0), so a collector that touches a newer API
unguarded fails here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from envsnap.capturing.collectors import precision, torch_runtime
from envsnap.capturing.collectors.base import CaptureContext

CONFIG_113 = (
    "PyTorch built with:\n  - GCC 9.3\n  - Intel(R) MKL-DNN v2.6.0\n  - OpenMP 201511\n"
    "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=11.7, "
    "CUDNN_VERSION=8.5.0, USE_CUDA=ON, USE_CUDNN=ON, USE_NCCL=1, \n"
)


def _torch_113() -> SimpleNamespace:
    float32 = type("dtype", (), {"__str__": lambda self: "torch.float32"})()
    cuda = SimpleNamespace(
        is_initialized=lambda: False,
        is_available=lambda: True,
        device_count=lambda: 1,
        nccl=SimpleNamespace(version=lambda: (2, 14, 3)),
    )
    backends = SimpleNamespace(
        cuda=SimpleNamespace(
            is_built=lambda: True,
            matmul=SimpleNamespace(
                allow_tf32=False,
                allow_fp16_reduced_precision_reduction=True,
                allow_bf16_reduced_precision_reduction=True,
            ),
        ),
        cudnn=SimpleNamespace(
            enabled=True,
            benchmark=False,
            deterministic=False,
            allow_tf32=True,
            is_available=lambda: True,
            version=lambda: 8500,
        ),
        mkl=SimpleNamespace(is_available=lambda: True),
        mkldnn=SimpleNamespace(is_available=lambda: True),
    )

    def is_autocast_enabled() -> bool:  # 1.x: no device argument, meant CUDA
        return False

    return SimpleNamespace(
        __version__="1.13.1+cu117",
        version=SimpleNamespace(cuda="11.7", hip=None, git_version="49444c3e546bf240bed24a1"),
        backends=backends,
        cuda=cuda,
        _C=SimpleNamespace(_nccl_version=lambda: 21403, _cuda_getArchFlags=lambda: "sm_80 sm_86"),
        __config__=SimpleNamespace(show=lambda: CONFIG_113),
        utils=SimpleNamespace(),
        get_float32_matmul_precision=lambda: "highest",
        are_deterministic_algorithms_enabled=lambda: False,
        is_deterministic_algorithms_warn_only_enabled=lambda: False,
        get_deterministic_debug_mode=lambda: 0,
        get_num_threads=lambda: 4,
        get_num_interop_threads=lambda: 4,
        get_default_dtype=lambda: float32,
        is_autocast_enabled=is_autocast_enabled,
        is_autocast_cpu_enabled=lambda: True,
        get_autocast_gpu_dtype=lambda: "torch.float16",
        get_autocast_cpu_dtype=lambda: "torch.bfloat16",
    )


def _torch_20() -> SimpleNamespace:
    torch = _torch_113()
    torch.__version__ = "2.0.1+cu118"
    torch.version = SimpleNamespace(cuda="11.8", hip=None, git_version="e9ebda29d87ce0916ab08c")
    cuda = torch.backends.cuda
    cuda.flash_sdp_enabled = lambda: True
    cuda.mem_efficient_sdp_enabled = lambda: True
    cuda.math_sdp_enabled = lambda: False
    return torch


def _env() -> dict[str, str]:
    return {"CUDA_VISIBLE_DEVICES": ""}


def test_torch_113_is_read_without_the_apis_it_lacks() -> None:
    section = torch_runtime.read_torch(_torch_113(), _env(), "job")
    assert section.version == "1.13.1+cu117"
    assert section.cudnn.version == 8500 and section.cudnn.enabled is True
    assert section.nccl_version == "2.14.3"
    assert section.matmul.float32_matmul_precision == "highest"
    # No SDPA before 2.0: null, with the reason, and the rest of the section is intact.
    assert (section.sdpa.flash, section.sdpa.mem_efficient, section.sdpa.math) == (None,) * 3
    assert "flash_sdp_enabled" in section.unknown["sdpa.flash"]
    assert section.deterministic.fill_uninitialized_memory is None
    assert section.deterministic.algorithms is False and section.deterministic.debug_mode == 0
    assert section.cpu_capability is None and "cpu_capability" in section.unknown
    assert section.build.onednn == "2.6.0" and section.build.settings["CUDNN_VERSION"] == "8.5.0"
    assert section.build.cuda_arch_list == ["sm_80", "sm_86"]
    assert section.fp32_precision == {}
    assert section.default_dtype == "torch.float32"


def test_torch_20_reads_sdpa_but_not_later_switches() -> None:
    section = torch_runtime.read_torch(_torch_20(), _env(), "job")
    assert (section.sdpa.flash, section.sdpa.mem_efficient, section.sdpa.math) == (
        True,
        True,
        False,
    )
    assert section.sdpa.cudnn is None and "sdpa.cudnn" in section.unknown
    assert section.sdpa.fp16_bf16_reduction_math is None
    assert "sdpa.flash" not in section.unknown


@pytest.mark.parametrize("make", [_torch_113, _torch_20], ids=["1.13", "2.0"])
def test_collectors_run_against_the_stand_in(
    make: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "torch", make())
    context = CaptureContext(env=_env(), cwd=tmp_path)
    section = torch_runtime.collect(context)
    assert section.imported_by == "job" and section.cuda_built is True
    # Autocast through the per-backend functions of torch < 2.4.
    states = precision.collect(context).autocast
    assert states["cpu"].enabled is True and states["cpu"].dtype == "bfloat16"
    assert states["cuda"].enabled is False and states["cuda"].dtype == "float16"
