"""`probe`: the numerics probe (envsnap.probe) run on the job's torch, on the CPU and on the
CUDA device the job already uses.

It runs alone, after every other collector (`exclusive`): for a moment it sets torch's thread
count to 1, which a concurrent `torch` collector would otherwise record as the job's. It never
starts CUDA in a job that has not: the GPU run needs the job's own CUDA context, or a CLI
capture that imported torch for `--probe`.
"""

from __future__ import annotations

from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.torch_runtime import import_torch
from envsnap.manifest.records import ProbeDevice, ProbeOp, ProbeSection

NOT_ASKED = "not asked for: envsnap capture --probe, or capture(probe=True) in the job"
NO_CUDA_CONTEXT = "the job has not initialised CUDA; the probe does not start it"


def _wanted(context: CaptureContext) -> bool:
    asked = context.config.probe
    return asked if asked is not None else context.in_job


def _devices(torch: Any, imported_by: str) -> tuple[list[str], str | None]:
    """The devices to probe, and why a GPU is left out when there is one."""
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is None or not cuda.is_available():
            return ["cpu"], None
        if imported_by == "job" and not cuda.is_initialized():
            return ["cpu"], NO_CUDA_CONTEXT
        return ["cpu", f"cuda:{cuda.current_device()}"], None
    except Exception as exc:  # a broken CUDA install costs the GPU run only
        return ["cpu"], f"CUDA state unreadable: {type(exc).__name__}: {exc}"[:300]


def collect(context: CaptureContext) -> ProbeSection:
    if not _wanted(context):
        raise CollectorUnavailable(NOT_ASKED)
    torch, imported_by = import_torch(context)
    devices, left_out = _devices(torch, imported_by)
    from envsnap.probe import run_probe

    raw = run_probe(devices)
    section = ProbeSection(
        suite=str(raw["suite"]),
        torch=raw.get("torch"),  # type: ignore[arg-type]
        elapsed_ms=raw.get("elapsed_ms"),  # type: ignore[arg-type]
        devices={
            name: ProbeDevice(
                **{key: value for key, value in device.items() if key != "ops"},
                ops={op: ProbeOp(**fields) for op, fields in device["ops"].items()},
            )
            for name, device in raw["devices"].items()  # type: ignore[attr-defined]
        },
    )
    if left_out:
        section.unknown["devices.cuda"] = left_out
    return section


COLLECTOR = Collector(
    name="probe",
    collect=collect,
    timeout_s=5.0,
    description="numerics probe (digests of fixed ops)",
    exclusive=True,
)
