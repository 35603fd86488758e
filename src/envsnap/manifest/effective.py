"""Resolve the fp32 precision that actually runs on CUDA, not the one that was declared.

Whether an fp32 matmul or convolution runs on TF32 tensor cores depends on three things: the
torch setting, the GPU (TF32 needs compute capability >= 8.0), and two environment overrides
(`NVIDIA_TF32_OVERRIDE`, `TORCH_ALLOW_TF32_CUBLAS_OVERRIDE`) that can silently beat the torch
setting. Sources (see the numerics reference, entries B1-B4):

- PyTorch CUDA environment variables: `TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1` "forces TF32
  enablement, overrides set_float32_matmul_precision setting"
  (https://docs.pytorch.org/docs/stable/cuda_environment_variables.html);
- `NVIDIA_TF32_OVERRIDE=0` turns TF32 off in all NVIDIA libraries; with `=1` the libraries use
  TF32 without torch's flag changing (Project-MONAI/MONAI#6754, alibaba/DeepRec NVIDIA-TF32.md;
  no NVIDIA primary page was found, so that reason says so).

The functions here are pure, so the differ can re-resolve from two manifests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envsnap.manifest.records import EffectivePrecision, EffectiveTf32

NVIDIA_OVERRIDE = "NVIDIA_TF32_OVERRIDE"
CUBLAS_OVERRIDE = "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"

# fp32_precision lookup chains of torch >= 2.9: a leaf set to "none" inherits from its parent.
MATMUL_CHAIN = ("cuda.matmul", "generic")
CONV_CHAIN = ("cudnn.conv", "cudnn", "generic")


@dataclass(frozen=True)
class Device:
    """A device the job can see: its product name and compute capability ('8.0'), if known."""

    name: str
    cc: str | None

    def label(self) -> str:
        return f"{self.name} (CC {self.cc or '?'})"


def env_switch(env: Mapping[str, str], name: str) -> bool | None:
    """True for '1'/'true', False for '0'/'false', None when unset or unrecognised."""
    value = env.get(name)
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("1", "true"):
        return True
    if lowered in ("0", "false"):
        return False
    return None


def chain_precision(fp32_precision: Mapping[str, str], chain: Sequence[str]) -> str | None:
    """Resolve an fp32_precision leaf: the first value in the chain that is not 'none'.

    Returns 'ieee' when every level says 'none' (torch's default), None when the chain's leaf was
    not recorded (torch < 2.9).
    """
    if chain[0] not in fp32_precision:
        return None
    for key in chain:
        value = fp32_precision.get(key, "none")
        if value != "none":
            return value
    return "ieee"


def torch_precision(
    fp32_precision: Mapping[str, str], chain: Sequence[str], legacy_allow_tf32: bool | None
) -> tuple[str | None, str]:
    """The precision torch asks for, from the new API if present, else the legacy flag."""
    value = chain_precision(fp32_precision, chain)
    if value is not None:
        return value, f"torch.backends.{chain[0]}.fp32_precision resolves to {value!r}"
    if legacy_allow_tf32 is None:
        return None, "the torch TF32 flag could not be read"
    value = "tf32" if legacy_allow_tf32 else "ieee"
    return value, f"the torch allow_tf32 flag is {legacy_allow_tf32}"


def _yes(reason: str) -> EffectiveTf32:
    return EffectiveTf32(tf32="yes", internal_precision="tf32", reason=reason)


def _no(reason: str, precision: str | None = "ieee") -> EffectiveTf32:
    return EffectiveTf32(tf32="no", internal_precision=precision, reason=reason)


def _unknown(reason: str) -> EffectiveTf32:
    return EffectiveTf32(tf32="unknown", internal_precision=None, reason=reason)


def _hardware_gate(devices: Sequence[Device] | None, devices_reason: str) -> EffectiveTf32 | None:
    """A decision from the hardware alone, or None when the GPUs can run TF32."""
    from envsnap.manifest import gpu_table  # loaded only when there are GPUs to look up

    if devices is None:
        return _unknown(f"GPU compute capability unknown: {devices_reason}")
    if not devices:
        return _no(f"no visible CUDA device ({devices_reason}); fp32 runs on the CPU", None)
    unknown = [d.label() for d in devices if d.cc is None]
    if unknown:
        return _unknown(f"compute capability unknown for {', '.join(unknown)}")
    with_tf32 = [d for d in devices if d.cc and gpu_table.capabilities(d.cc).tf32]
    if not with_tf32:
        names = ", ".join(f"{d.label()}, {gpu_table.arch_name(d.cc or '') or '?'}" for d in devices)
        return _no(f"{names}: no TF32 tensor cores (needs compute capability >= 8.0)")
    if len(with_tf32) != len(devices):
        labels = ", ".join(d.label() for d in devices)
        return _unknown(f"visible GPUs differ in TF32 support ({labels}); it depends on the device")
    return None


def resolve_op(
    *,
    op: str,
    requested: str | None,
    requested_reason: str,
    devices: Sequence[Device] | None,
    devices_reason: str,
    env: Mapping[str, str],
    cublas_override_applies: bool,
) -> EffectiveTf32:
    """Resolve one operation family ('fp32 matmul', 'fp32 conv')."""
    gate = _hardware_gate(devices, devices_reason)
    if gate is not None:
        return gate
    nvidia = env_switch(env, NVIDIA_OVERRIDE)
    if nvidia is False:
        return _no(f"{NVIDIA_OVERRIDE}=0 turns TF32 off in NVIDIA libraries whatever torch says")
    if cublas_override_applies and env_switch(env, CUBLAS_OVERRIDE):
        return _yes(f"{CUBLAS_OVERRIDE}=1 forces TF32 for cuBLAS over the torch setting")
    if requested is None:
        return _unknown(f"{op}: {requested_reason}")
    if requested == "tf32":
        return _yes(f"{requested_reason} and the GPU has TF32 tensor cores")
    if nvidia is True:
        return _yes(
            f"{requested_reason}, but {NVIDIA_OVERRIDE}=1 lets NVIDIA libraries use TF32 "
            "internally (third-party sources; no NVIDIA primary page found)"
        )
    if requested == "ieee":
        return _no(requested_reason)
    return _unknown(f"{op}: {requested_reason} (not a CUDA fp32 mode)")


def resolve(
    *,
    fp32_precision: Mapping[str, str],
    matmul_allow_tf32: bool | None,
    cudnn_allow_tf32: bool | None,
    cudnn_enabled: bool | None,
    cuda_built: bool,
    devices: Sequence[Device] | None,
    devices_reason: str,
    env: Mapping[str, str],
) -> EffectivePrecision:
    """Resolve fp32 matmul and convolution precision for the devices the job sees.

    `devices` is None when the GPUs could not be read (`devices_reason` says why) and empty when
    there are none.
    """
    overrides = {name: env[name] for name in (NVIDIA_OVERRIDE, CUBLAS_OVERRIDE) if name in env}
    labels = [d.label() for d in devices or ()]
    if not cuda_built:
        cpu = _no("this torch build has no CUDA support; fp32 runs on the CPU", None)
        return EffectivePrecision(
            matmul_fp32=cpu, conv_fp32=cpu, devices=labels, overrides=overrides
        )
    requested, why = torch_precision(fp32_precision, MATMUL_CHAIN, matmul_allow_tf32)
    matmul = resolve_op(
        op="fp32 matmul",
        requested=requested,
        requested_reason=why,
        devices=devices,
        devices_reason=devices_reason,
        env=env,
        cublas_override_applies=True,
    )
    if cudnn_enabled is False:
        conv = _unknown("cuDNN is disabled, so convolutions use fallback kernels")
    else:
        requested, why = torch_precision(fp32_precision, CONV_CHAIN, cudnn_allow_tf32)
        conv = resolve_op(
            op="fp32 conv",
            requested=requested,
            requested_reason=why,
            devices=devices,
            devices_reason=devices_reason,
            env=env,
            cublas_override_applies=False,
        )
    return EffectivePrecision(
        matmul_fp32=matmul, conv_fp32=conv, devices=labels, overrides=overrides
    )
