"""Effective fp32 precision: flags x GPU capability x environment overrides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from envsnap.manifest.effective import Device, chain_precision, resolve
from envsnap.manifest.records import EffectivePrecision

A100 = Device("NVIDIA A100-SXM4-80GB", "8.0")
V100 = Device("Tesla V100-SXM2-32GB", "7.0")
H100 = Device("NVIDIA H100 80GB HBM3", "9.0")
DEFAULT_29 = {"generic": "none", "cuda.matmul": "none", "cudnn": "none", "cudnn.conv": "tf32"}


def run(
    *,
    devices: Sequence[Device] | None = (A100,),
    fp32: Mapping[str, str] | None = None,
    matmul: bool | None = False,
    cudnn: bool | None = True,
    env: Mapping[str, str] | None = None,
    cudnn_enabled: bool = True,
    cuda_built: bool = True,
) -> EffectivePrecision:
    return resolve(
        fp32_precision=fp32 or {},
        matmul_allow_tf32=matmul,
        cudnn_allow_tf32=cudnn,
        cudnn_enabled=cudnn_enabled,
        cuda_built=cuda_built,
        devices=None if devices is None else list(devices),
        devices_reason="NVML: no driver",
        env=env or {},
    )


def test_defaults_on_ampere_matmul_off_conv_on() -> None:
    result = run()
    assert result.matmul_fp32.tf32 == "no"
    assert result.matmul_fp32.internal_precision == "ieee"
    assert result.conv_fp32.tf32 == "yes"
    assert result.devices == ["NVIDIA A100-SXM4-80GB (CC 8.0)"]


def test_flag_on_without_tf32_hardware_is_no() -> None:
    result = run(devices=[V100], matmul=True)
    assert result.matmul_fp32.tf32 == "no"
    assert "no TF32 tensor cores" in result.matmul_fp32.reason
    assert "Volta" in result.matmul_fp32.reason


def test_same_flags_differ_between_v100_and_a100() -> None:
    assert run(devices=[V100], matmul=True).matmul_fp32.tf32 == "no"
    assert run(devices=[A100], matmul=True).matmul_fp32.tf32 == "yes"


def test_cublas_override_beats_a_false_flag_for_matmul_only() -> None:
    result = run(matmul=False, cudnn=False, env={"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"})
    assert result.matmul_fp32.tf32 == "yes"
    assert "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1" in result.matmul_fp32.reason
    assert result.conv_fp32.tf32 == "no"
    assert result.overrides == {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}


def test_nvidia_override_zero_turns_everything_off() -> None:
    env = {"NVIDIA_TF32_OVERRIDE": "0", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}
    result = run(matmul=True, cudnn=True, env=env)
    assert result.matmul_fp32.tf32 == "no"
    assert result.conv_fp32.tf32 == "no"
    assert "NVIDIA_TF32_OVERRIDE=0" in result.conv_fp32.reason


def test_nvidia_override_one_turns_tf32_on_behind_torchs_back() -> None:
    result = run(matmul=False, env={"NVIDIA_TF32_OVERRIDE": "1"})
    assert result.matmul_fp32.tf32 == "yes"
    assert "NVIDIA_TF32_OVERRIDE=1" in result.matmul_fp32.reason


def test_new_api_wins_over_legacy_flag() -> None:
    fp32 = {**DEFAULT_29, "cuda.matmul": "tf32"}
    assert run(fp32=fp32, matmul=None).matmul_fp32.tf32 == "yes"
    fp32 = {**DEFAULT_29, "cudnn.conv": "ieee"}
    assert run(fp32=fp32, cudnn=True).conv_fp32.tf32 == "no"


def test_generic_setting_is_inherited_by_none_leaves() -> None:
    fp32 = {"generic": "tf32", "cuda.matmul": "none", "cudnn": "none", "cudnn.conv": "none"}
    result = run(fp32=fp32)
    assert result.matmul_fp32.tf32 == "yes"
    assert result.conv_fp32.tf32 == "yes"
    assert (
        chain_precision({"generic": "none", "cuda.matmul": "none"}, ("cuda.matmul", "generic"))
        == "ieee"
    )
    assert chain_precision({}, ("cuda.matmul", "generic")) is None


def test_unreadable_flag_is_unknown() -> None:
    result = run(matmul=None)
    assert result.matmul_fp32.tf32 == "unknown"
    assert "could not be read" in result.matmul_fp32.reason


def test_unknown_gpu_is_unknown_with_the_reason() -> None:
    result = run(devices=None, matmul=True)
    assert result.matmul_fp32.tf32 == "unknown"
    assert "NVML: no driver" in result.matmul_fp32.reason


def test_mixed_gpus_are_unknown() -> None:
    result = run(devices=[V100, A100], matmul=True)
    assert result.matmul_fp32.tf32 == "unknown"
    assert "differ" in result.matmul_fp32.reason


@pytest.mark.parametrize("devices", [[], [A100, H100]])
def test_no_device_or_all_capable(devices: list[Device]) -> None:
    result = run(devices=devices, matmul=True)
    assert result.matmul_fp32.tf32 == ("no" if not devices else "yes")


def test_cpu_build_and_disabled_cudnn() -> None:
    assert run(cuda_built=False, matmul=True).matmul_fp32.tf32 == "no"
    assert run(cudnn_enabled=False).conv_fp32.tf32 == "unknown"
