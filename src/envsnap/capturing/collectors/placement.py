"""`placement`: where the job really ran: container image, scheduler allocation, CPU affinity.

Reads markers and variables only (see envsnap.capturing.placement): no engine, registry or
scheduler is asked, so nothing the inside cannot tell is guessed.
"""

from __future__ import annotations

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.capturing.placement.affinity import read_affinity
from envsnap.capturing.placement.container import detect_runtime
from envsnap.capturing.placement.image import read_image
from envsnap.capturing.placement.scheduler import read_kubernetes, read_slurm
from envsnap.manifest.records import PlacementSection


def collect(context: CaptureContext) -> PlacementSection:
    root, env = context.files_root, context.env
    redact = context.redactor.redact_value
    unknown: dict[str, str] = {}
    container = detect_runtime(root, env)
    image = read_image(root, env, redact, unknown, in_container=container.runtime is not None)
    return PlacementSection(
        container=container,
        image=image,
        slurm=read_slurm(env, redact),
        kubernetes=read_kubernetes(root, env, redact),
        cpu=read_affinity(root, env, unknown),
        unknown=dict(sorted(unknown.items())),
    )


COLLECTOR = Collector(
    name="placement", collect=collect, timeout_s=2.0, description="image, allocation, CPUs"
)
