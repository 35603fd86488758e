"""`gpu`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.gpu import GpuSection


def collect(context: CaptureContext) -> GpuSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="gpu", collect=collect, timeout_s=5.0, description="gpu")
