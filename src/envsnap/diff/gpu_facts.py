"""Derived findings about the GPUs and where the math ran: one finding for the hardware, one per
distinct consequence (kernel choice, TF32, seeded CUDA random streams, GPU vs CPU)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from envsnap.diff.derived import Hit, get, version_of
from envsnap.diff.device import (
    devices,
    effective_tf32,
    gpu_in_use,
    job_device,
    recorded_tf32,
    tf32_default_note,
    tf32_gpu,
)
from envsnap.diff.report import Severity
from envsnap.diff.sides import Side, where
from envsnap.diff.versions import STEP_SIZE, local_tag
from envsnap.diff.wheel_libraries import bundled_libraries
from envsnap.diff.wheel_libraries import side_version as wheel_library

Doc = dict[str, Any]
_SHORT = ("NVIDIA ", "GeForce ", "Tesla ")


def _short_name(name: Any) -> str:
    text = str(name or "unknown GPU")
    for prefix in _SHORT:
        text = text.replace(prefix, "")
    return text.strip()


def _sm(cc: Any) -> str:
    return "sm_" + str(cc).replace(".", "") if cc else "sm_?"


def _is_amd(device: dict[str, Any]) -> bool:
    return not device.get("compute_capability") and str(device.get("arch") or "").startswith("gfx")


def target(device: dict[str, Any] | None) -> str:
    """The kernel target a GPU compiles for: 'sm_80', or an AMD LLVM target ('gfx90a')."""
    if device is None:
        return "sm_?"
    return str(device["arch"]) if _is_amd(device) else _sm(device.get("compute_capability"))


def _one(device: dict[str, Any]) -> str:
    if _is_amd(device):
        details = [target(device)]
        unit = "CUs"
    else:
        details = [str(device.get("arch") or "?") + " " + target(device)]
        unit = "SMs"
    if isinstance(device.get("sm_count"), int):
        details.append(f"{device['sm_count']} {unit}")
    return f"{_short_name(device.get('name'))} ({', '.join(details)})"


def describe(doc: Doc) -> str:
    """'4× RTX A4000 (Ampere sm_86, 48 SMs)'; several models are joined with ' + '."""
    found = devices(doc)
    if not found:
        return "no GPU"
    counts: dict[str, int] = {}
    for device in found:
        key = _one(device)
        counts[key] = counts.get(key, 0) + 1
    return " + ".join(f"{count}× {text}" for text, count in counts.items())


def _device0(doc: Doc) -> dict[str, Any] | None:
    found = devices(doc)
    return found[0] if found else None


def _first(doc: Doc, key: str) -> Any:
    device = _device0(doc)
    return device.get(key) if device else None


def gpu_change(a: Doc, b: Doc) -> Iterator[Hit]:
    """The GPU identity as one finding, and the kernel choice that follows from it."""
    if not (devices(a) or devices(b)) or not (
        isinstance(a.get("gpu"), dict) and isinstance(b.get("gpu"), dict)
    ):
        return
    desc_a, desc_b = describe(a), describe(b)
    if desc_a == desc_b:
        return
    # Losing every GPU moves the job's math to another device altogether.
    lost: tuple[Severity, Severity, Severity] | None = (
        ("high", "medium", "low") if not (devices(a) and devices(b)) else None
    )
    yield Hit(
        "hw.gpu",
        "gpu.devices",
        desc_a,
        desc_b,
        title=f"GPU changed: {desc_a} → {desc_b}",
        severity=lost,
    )
    if not (devices(a) and devices(b)) or False in (gpu_in_use(a), gpu_in_use(b)):
        return
    cc_a, cc_b = _first(a, "compute_capability"), _first(b, "compute_capability")
    sms_a, sms_b = _first(a, "sm_count"), _first(b, "sm_count")
    names = (_first(a, "name"), _first(b, "name"))
    target_a, target_b = target(_device0(a)), target(_device0(b))
    if cc_a != cc_b or target_a != target_b:
        amd = target_a.startswith("gfx") or target_b.startswith("gfx")
        yield Hit(
            "hw.gpu-kernels",
            "gpu.devices.0.compute_capability" if cc_a != cc_b else "gpu.devices.0.arch",
            cc_a if cc_a != cc_b else target_a,
            cc_b if cc_a != cc_b else target_b,
            title=f"{'GPU BLAS/DNN libraries' if amd else 'cuBLAS/cuDNN'} pick other kernels: "
            f"{target_a} → {target_b}",
            severity=("high", "medium", "low"),
        )
    elif isinstance(sms_a, int) and isinstance(sms_b, int):
        if sms_a != sms_b:
            yield Hit(
                "hw.gpu-kernels",
                "gpu.devices.0.sm_count",
                sms_a,
                sms_b,
                title=f"cuBLAS/cuDNN pick other kernels: {sms_a} → {sms_b} SMs",
            )
    elif names[0] != names[1]:
        yield Hit(
            "hw.gpu-kernels",
            "gpu.devices.0.name",
            names[0],
            names[1],
            title=f"cuBLAS/cuDNN may pick other kernels: {_short_name(names[0])} → "
            f"{_short_name(names[1])} (same architecture, SM count not recorded)",
        )


def _seeded(doc: Doc) -> bool:
    seeds = doc.get("seeds")
    return isinstance(seeds, dict) and (
        seeds.get("master_seed") is not None or bool(seeds.get("seeded"))
    )


def cuda_rng_streams(a: Doc, b: Doc) -> Iterator[Hit]:
    """Philox offsets of CUDA random kernels follow the launch grid, which is capped by the SM
    count: the same seed draws other numbers on GPUs with other SM counts."""
    if not (devices(a) and devices(b)) or False in (gpu_in_use(a), gpu_in_use(b)):
        return
    sms_a, sms_b = _first(a, "sm_count"), _first(b, "sm_count")
    if isinstance(sms_a, int) and isinstance(sms_b, int):
        if sms_a == sms_b:
            return
        title = f"seeded CUDA random streams differ: {sms_a} → {sms_b} SMs"
    elif _first(a, "name") != _first(b, "name"):
        title = "seeded CUDA random streams may differ: GPU model changed, SM count not recorded"
    else:
        return
    seeded = _seeded(a) and _seeded(b)
    unknown = [side for doc, side in ((a, "A"), (b, "B")) if not isinstance(doc.get("seeds"), dict)]
    yield Hit(
        "randomness.cuda-rng-sm-count",
        "gpu.devices.0.sm_count",
        sms_a,
        sms_b,
        title=title,
        active=seeded,
        # Unseeded runs draw other numbers anyway; the SM count only matters once seeded. A side
        # that does not record its seeds may have seeded: the mechanism is likely, not shown.
        severity=None if seeded or unknown else ("medium", "low", "low"),
        inferred=_rng_inferred(a, b, unknown),
    )


def _rng_inferred(a: Doc, b: Doc, unseeded_unknown: list[str]) -> str | None:
    """What the seeded-stream finding rests on when the records do not state it: SM counts the
    GPU table gives for an imported GPU name, seeding a record does not state."""
    notes = [
        f"{side}: SM count from the GPU table for {_short_name(_first(doc, 'name'))!r}"
        for doc, side in ((a, "A"), (b, "B"))
        if doc.get("imported_from") and isinstance(_first(doc, "sm_count"), int)
    ]
    if unseeded_unknown:
        notes.append(
            f"whether the job seeded torch is not recorded on {', '.join(unseeded_unknown)}"
        )
    return "; ".join(notes) or None


# Above every version step: of two findings otherwise equal, another device type comes before
# even a major version bump, since no release changes every kernel and every random stream.
DEVICE_STEP = STEP_SIZE["major"] + 1


def device_change(a: Doc, b: Doc) -> Iterator[Hit]:
    """The job's math ran on different device types (GPU on one side, CPU on the other)."""
    device_a, device_b = job_device(a), job_device(b)
    if device_a is not None and device_b is not None and device_a != device_b:
        yield Hit(
            "hw.device",
            "precision.device",
            device_a,
            device_b,
            title=f"the job ran on {device_a.upper()} {where('a', 'in')} and on "
            f"{device_b.upper()} {where('b', 'in')}",
            # The largest step a hardware change takes: every kernel differs, and seeded draws
            # come from another generator (CPU and CUDA streams differ for one seed). Of
            # findings otherwise equal, it outranks a change that reaches part of the
            # arithmetic (another OS's C runtime, a CPU of another architecture).
            magnitude=DEVICE_STEP,
        )


def tf32_sides(a: Doc, b: Doc) -> Iterator[Hit]:
    """fp32 matmul or convolution runs as TF32 on one side only; or on both, on different
    architectures."""
    for family, noun in (("matmul", "matmuls"), ("conv", "convolutions")):
        ea, eb = effective_tf32(a, family), effective_tf32(b, family)
        path = f"torch.effective.{family}_fp32.tf32"
        if {ea, eb} == {"yes", "no"} and family == "conv" and cudnn_toggled(a, b):
            # cuDNN itself was switched off: that is the cause, TF32 only one consequence.
            yield Hit(
                "algo.cudnn-api",
                "torch.cudnn.enabled",
                get(a, "torch.cudnn.enabled"),
                get(b, "torch.cudnn.enabled"),
                title="cuDNN disabled on one side: convolutions run native kernels (no TF32)",
            )
        elif {ea, eb} == {"yes", "no"}:
            on: Side = "a" if ea == "yes" else "b"
            inferred = _tf32_inferred(a, b, family)
            yield Hit(
                "precision.tf32-effective",
                path,
                ea,
                eb,
                title=f"fp32 {noun} run as TF32 {where(on, 'on')} only{_tf32_reason(a, b)}",
                # Inferred from torch's release defaults, TF32 is likely but not shown to run:
                # the rule's severity (a named precision mechanism), latent.
                active=inferred is None,
                inferred=inferred,
            )
        elif ea == eb == "yes" and _first(a, "arch") != _first(b, "arch"):
            inferred = _tf32_inferred(a, b, family)
            yield Hit(
                "precision.tf32-arch",
                path,
                _first(a, "arch"),
                _first(b, "arch"),
                title=f"fp32 {noun} run as TF32 on both sides, on different architectures",
                active=inferred is None,
                inferred=inferred,
            )


def _tf32_side(doc: Doc, side: Side, family: str) -> str | None:
    """Why one side's TF32 state is what it is, when that is inferred rather than recorded."""
    if gpu_in_use(doc) is False:
        return None  # no GPU math: stated by the record
    if tf32_gpu(doc) is False:
        return f"{side.upper()}: {describe(doc)} has no TF32 (before Ampere)"
    if recorded_tf32(doc, family):
        return None
    return f"{side.upper()}: {tf32_default_note(doc, family)}"


def _tf32_inferred(a: Doc, b: Doc, family: str) -> str | None:
    """What the TF32 states of the two sides were inferred from; None when both are recorded
    (a side whose flags are recorded and whose GPU cannot run TF32 is stated too)."""
    if recorded_tf32(a, family) and recorded_tf32(b, family):
        return None
    notes = [_tf32_side(a, "a", family), _tf32_side(b, "b", family)]
    return "; ".join(note for note in notes if note) or None


# The library that decides whether fp32 math of a family runs a TF32 kernel, and where its
# version is recorded (the copy torch loads, then the pip wheel).
_DECIDER = {
    "conv": ("cuDNN", ("torch.cudnn.version", "cuda_stack.libraries.cudnn.version"), "cudnn"),
    "matmul": ("cuBLAS", ("cuda_stack.libraries.cublas.version",), "cublas"),
}


def _cuda_build(doc: Doc) -> tuple[Any, Any]:
    """(wheel tag such as 'cu126', CUDA toolkit torch was built with)."""
    cuda = get(doc, "cuda_stack.torch_cuda") or get(doc, "torch.cuda")
    return local_tag(version_of(doc, "torch")), cuda


def _library(doc: Doc, family: str) -> Any:
    _, paths, wheel = _DECIDER[family]
    for path in paths:
        section, _, rest = path.partition(".")
        unknown = get(doc, f"{section}.unknown")
        if isinstance(unknown, dict) and rest in unknown:
            continue
        value = get(doc, path)
        if value is not None:
            return value
    installed = get(doc, "packages.installed")
    if isinstance(installed, dict):
        for name, entry in installed.items():
            if name.startswith(f"nvidia-{wheel}-cu") and isinstance(entry, dict):
                return entry.get("version")
    return wheel_library(doc, wheel)[0]  # what the torch wheel ships, when it is an official one


def _autocast(doc: Doc) -> bool:
    """True when the job declares fp16 or bf16 autocast for its training step."""
    return get(doc, "precision.amp_dtype") in ("float16", "bfloat16")


def tf32_library(a: Doc, b: Doc) -> Iterator[Hit]:
    """TF32 allowed on both sides, and the cuDNN/cuBLAS that choose whether a TF32 kernel runs
    changed with the CUDA build: fp32 math may run TF32 kernels on one side only."""
    build_a, build_b = _cuda_build(a), _cuda_build(b)
    if build_a == build_b or False in (gpu_in_use(a), gpu_in_use(b)):
        return
    for family, noun in (("matmul", "matmuls"), ("conv", "convolutions")):
        if not effective_tf32(a, family) == effective_tf32(b, family) == "yes":
            continue
        name = _DECIDER[family][0]
        lib_a, lib_b = _library(a, family), _library(b, family)
        if lib_a is not None and lib_a == lib_b:
            continue  # the same library on both sides: the build change cannot move TF32
        shown = "changed" if None not in (lib_a, lib_b) else "not recorded on both sides"
        before, after = (build_a[0] or build_a[1], build_b[0] or build_b[1])
        yield Hit(
            "precision.tf32-library",
            f"torch.effective.{family}_fp32.tf32",
            "yes",
            "yes",
            title=f"fp32 {noun} may run TF32 kernels on one side only: TF32 allowed on both, "
            f"{name} {shown} with the CUDA build ({before} → {after})",
            # Under fp16/bf16 autocast on both sides, matmuls and convolutions run in that dtype:
            # TF32 is then only possible for the fp32 math left outside autocast.
            active=recorded_tf32(a, family)
            and recorded_tf32(b, family)
            and not (_autocast(a) and _autocast(b)),
            extra=((_DECIDER[family][1][0], lib_a, lib_b),),
        )


def cudnn_toggled(a: Doc, b: Doc) -> bool:
    enabled = (get(a, "torch.cudnn.enabled"), get(b, "torch.cudnn.enabled"))
    return None not in enabled and enabled[0] != enabled[1]


def _tf32_reason(a: Doc, b: Doc) -> str:
    if job_device(a) != job_device(b) and None not in (job_device(a), job_device(b)):
        return " (GPU vs CPU)"
    caps = [
        {d.get("capabilities", {}).get("tf32") for d in devices(doc) if isinstance(d, dict)}
        for doc in (a, b)
    ]
    if caps[0] != caps[1]:
        return " (TF32-capable GPU on one side only)"
    return ""


GPU_DERIVED = (
    gpu_change,
    cuda_rng_streams,
    device_change,
    tf32_sides,
    tf32_library,
    bundled_libraries,
)
