"""Resolve the fp32 precision that actually runs, on CUDA and on the CPU, not the one declared.

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

The functions here are pure, so the differ can re-resolve from two manifests. `op_precision`
reads one manifest document and answers per device and operation family (the CPU rules are
in the comment above `CPU_OPS`); the differ, the audit, `show` and bisect all read that answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


# ---------------------------------------------------------------------------------------------
# The one derived fact: what fp32 math runs as, per device and operation family, read from a
# manifest document. The differ, the audit, `show` and bisect all read it from here.
#
# On the CPU, torch runs fp32 matmuls, convolutions and RNNs through oneDNN (MKLDNN), which can
# compute them in bf16 or tf32 when asked (torch/aten/src/ATen/native/mkldnn/Matmul.cpp):
#
# - torch >= 2.9: `torch.backends.mkldnn.{matmul,conv,rnn}.fp32_precision` = "ieee", "bf16" or
#   "tf32", a leaf left at "none" inheriting `mkldnn.fp32_precision`, then the generic
#   `torch.backends.fp32_precision` (https://docs.pytorch.org/docs/stable/notes/mkldnn.html,
#   "Starting in PyTorch 2.9"). `set_float32_matmul_precision("medium")` sets the matmul leaf to
#   "bf16" and "high" to "tf32" (checked on torch 2.13).
# - torch 2.3 to 2.8: `set_float32_matmul_precision("medium")` alone makes oneDNN compute fp32
#   matmuls in bf16 (pytorch/pytorch#125386, a maintainer's answer for torch 2.3); before 2.3 the
#   setting acted on CUDA only (its docstring: "only affects one native device type: CUDA").
# - bf16 runs only where oneDNN has bf16 kernels for the CPU (torch checks
#   `mkldnn_bf16_device_check()`: avx512bw/vl/dq, avx_ne_convert, or Arm bf16), and tf32 only
#   with AMX-FP16 (`cpuinfo_has_x86_amx_fp16()`); elsewhere the same fp32 kernels run as before.
#   oneDNN treats the mode as a hint it follows where the hardware allows
#   (uxlfoundation/oneDNN#2230). Both need `torch.backends.mkldnn.enabled`.
# ---------------------------------------------------------------------------------------------

CPU_OPS = ("matmul", "conv", "rnn")
CUDA_OPS = ("matmul", "conv")
DEVICE_NAMES = {"cpu": "CPU", "cuda": "CUDA"}
MATMUL_PRECISION_PATH = "torch.matmul.float32_matmul_precision"
MEDIUM_BF16_ON_CPU_SINCE = (2, 3)
# ISA flags (system.cpu.isa_flags, torch.cpu.features) that give oneDNN bf16 kernels.
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "avx_ne_convert", "bf16", "sve_bf16"})
_CUDA_BACKENDS = {"matmul": "cuBLAS", "conv": "cuDNN"}
_REDUCED = frozenset({"bf16", "tf32"})
_MAJOR_MINOR = re.compile(r"(\d+)\.(\d+)")


@dataclass(frozen=True)
class OpPrecision:
    """What fp32 `op` math runs as on `device`: 'ieee', 'tf32', 'bf16', or None when unknown.

    `setting` is the manifest path of the setting that asked for it (None where no setting
    did); `requested` what that setting asked for; `inferred` says what the answer was inferred
    from when the record does not state it (an ISA capability instead of torch's own check).
    """

    device: str
    op: str
    precision: str | None
    backend: str
    setting: str | None
    requested: str | None
    reason: str
    inferred: str | None = None

    @property
    def reduced(self) -> bool | None:
        """True when fp32 math runs in a narrower format (bf16, tf32); None when unknown."""
        return None if self.precision is None else self.precision in _REDUCED

    def label(self) -> str:
        """'bf16 (mkldnn) on CPU', 'ieee (cuBLAS) on CUDA', 'unknown on CPU'."""
        where = DEVICE_NAMES.get(self.device, self.device)
        if self.precision is None:
            return f"unknown on {where}"
        return f"{self.precision} ({self.backend}) on {where}"


def fp32_precision_path(key: str) -> str:
    """The manifest path of one fp32_precision leaf, as the differ spells it (a key with a dot
    is quoted: `torch.fp32_precision["mkldnn.matmul"]`)."""
    return f'torch.fp32_precision["{key}"]' if "." in key else f"torch.fp32_precision.{key}"


def cpu_chain(op: str) -> tuple[str, ...]:
    """The fp32_precision lookup chain of a oneDNN op family (torch >= 2.9)."""
    return (f"mkldnn.{op}", "mkldnn", "generic")


def cpu_settings(op: str) -> tuple[str, ...]:
    """Every manifest path that can decide `op`'s fp32 precision on the CPU."""
    paths = tuple(fp32_precision_path(key) for key in cpu_chain(op))
    return (*paths, MATMUL_PRECISION_PATH) if op == "matmul" else paths


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _minor(version: Any) -> tuple[int, int] | None:
    """(2, 3) from '2.3.1+cu121'; None when the text does not start with two numbers."""
    found = _MAJOR_MINOR.match(version) if isinstance(version, str) else None
    return (int(found.group(1)), int(found.group(2))) if found else None


def cpu_requested(torch: Mapping[str, Any], op: str) -> tuple[str | None, str | None, str]:
    """What torch asks oneDNN to run fp32 `op` math as: (precision, setting path, why)."""
    fp32 = _mapping(torch.get("fp32_precision"))
    chain = cpu_chain(op)
    if chain[0] in fp32:
        for key in chain:
            value = fp32.get(key, "none")
            if value != "none":
                label = "torch.backends" + ("" if key == "generic" else f".{key}")
                return str(value), fp32_precision_path(key), f"{label}.fp32_precision={value!r}"
        return "ieee", fp32_precision_path(chain[0]), "every fp32_precision level is 'none'"
    if op != "matmul":
        return "ieee", None, f"before torch 2.9 no setting lowers fp32 {op} precision on the CPU"
    setting = _mapping(torch.get("matmul")).get("float32_matmul_precision")
    if not isinstance(setting, str):
        return None, MATMUL_PRECISION_PATH, "float32_matmul_precision was not recorded"
    if setting != "medium":
        return "ieee", MATMUL_PRECISION_PATH, f"float32_matmul_precision={setting!r}"
    version = _minor(torch.get("version"))
    if version is None:
        return None, MATMUL_PRECISION_PATH, "'medium' acts on the CPU from torch 2.3 on"
    if version < MEDIUM_BF16_ON_CPU_SINCE:
        return "ieee", MATMUL_PRECISION_PATH, "before torch 2.3 'medium' acts on CUDA only"
    return "bf16", MATMUL_PRECISION_PATH, "float32_matmul_precision='medium' (bf16 on oneDNN)"


def _flags(torch: Mapping[str, Any], isa_flags: Sequence[str]) -> set[str]:
    features = _mapping(torch.get("cpu")).get("features")
    return {*isa_flags, *(features if isinstance(features, list) else ())}


def _bf16_kernels(
    torch: Mapping[str, Any], isa_flags: Sequence[str]
) -> tuple[bool | None, str, str | None]:
    """Whether oneDNN has bf16 kernels for the CPU: (answer, why, what it was inferred from)."""
    stated = _mapping(torch.get("cpu")).get("bf16")
    if isinstance(stated, bool):
        return (
            stated,
            "oneDNN " + ("has" if stated else "has no") + " bf16 kernels for this CPU",
            None,
        )
    capability = torch.get("cpu_capability")
    found = sorted(_flags(torch, isa_flags) & BF16_FLAGS)
    if found:
        return True, f"the CPU has {', '.join(found)}", "ISA flags"
    if capability == "AVX512":
        return True, "AVX512 (avx512bw/vl/dq: oneDNN's bf16 path)", "the CPU capability"
    if capability in ("AVX2", "DEFAULT", "NO AVX"):
        why = f"{capability} without avx_ne_convert: no oneDNN bf16 kernels"
        return False, why, "the CPU capability"
    return None, "whether oneDNN has bf16 kernels for this CPU is not recorded", None


def _tf32_kernels(
    torch: Mapping[str, Any], isa_flags: Sequence[str]
) -> tuple[bool | None, str, str | None]:
    """Whether oneDNN can run fp32 matmul as tf32 on the CPU (AMX-FP16)."""
    stated = _mapping(torch.get("cpu")).get("amx_fp16")
    if isinstance(stated, bool):
        return stated, "the CPU " + ("has" if stated else "has no") + " AMX-FP16", None
    if "amx_fp16" in _flags(torch, isa_flags):
        return True, "the CPU has amx_fp16", "ISA flags"
    if isa_flags:  # the system section records every amx* flag
        return False, "the CPU has no AMX-FP16 (amx_fp16 not among its ISA flags)", "ISA flags"
    return None, "whether the CPU has AMX-FP16 is not recorded", None


def cpu_precision(torch: Mapping[str, Any], op: str, isa_flags: Sequence[str] = ()) -> OpPrecision:
    """What fp32 `op` math ('matmul', 'conv', 'rnn') runs as on the CPU, from a torch section
    (its JSON form) and the CPU's ISA flags."""
    requested, setting, asked = cpu_requested(torch, op)

    def answer(precision: str | None, reason: str, inferred: str | None = None) -> OpPrecision:
        return OpPrecision("cpu", op, precision, "mkldnn", setting, requested, reason, inferred)

    if requested is None:
        return answer(None, f"fp32 {op} on the CPU: {asked}")
    if requested not in _REDUCED:
        return answer("ieee", asked)
    if _mapping(torch.get("build")).get("mkldnn") is False:
        return answer("ieee", f"{asked}, but this torch build has no oneDNN")
    if _mapping(torch.get("cpu")).get("mkldnn_enabled") is False:
        return answer("ieee", f"{asked}, but torch.backends.mkldnn.enabled is False")
    kernels = _bf16_kernels if requested == "bf16" else _tf32_kernels
    present, why, inferred = kernels(torch, isa_flags)
    if present is None:
        return answer(None, f"{asked}; {why}")
    if not present:
        return answer("ieee", f"{asked}, but {why}: fp32 runs as before", inferred)
    return answer(requested, f"{asked} and {why}", inferred)


def cuda_precision(torch: Mapping[str, Any], op: str) -> OpPrecision:
    """What fp32 `op` math runs as on CUDA: the recorded resolution (`torch.effective`)."""
    backend = _CUDA_BACKENDS.get(op, "CUDA")
    recorded = _mapping(_mapping(torch.get("effective")).get(f"{op}_fp32"))
    state, reason = recorded.get("tf32"), str(recorded.get("reason") or "not recorded")
    if state == "yes":
        precision: str | None = "tf32"
    elif state == "no":
        internal = recorded.get("internal_precision")
        precision = internal if isinstance(internal, str) else None
    else:
        precision = None
    return OpPrecision("cuda", op, precision, backend, None, None, reason)


def op_precision(doc: Mapping[str, Any], device: str, op: str) -> OpPrecision:
    """What fp32 `op` math runs as on `device` ('cpu' or 'cuda') in the run a manifest document
    records: the one derived fact the differ, the audit, `show` and bisect read."""
    torch = doc.get("torch")
    if not isinstance(torch, Mapping):
        backend = "mkldnn" if device == "cpu" else _CUDA_BACKENDS.get(op, "CUDA")
        return OpPrecision(device, op, None, backend, None, None, "torch section not recorded")
    if device == "cuda":
        return cuda_precision(torch, op)
    flags = _mapping(_mapping(doc.get("system")).get("cpu")).get("isa_flags")
    return cpu_precision(
        torch, op, [f for f in flags if isinstance(f, str)] if isinstance(flags, list) else ()
    )
