"""`parallel`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.parallel import ParallelSection


def collect(context: CaptureContext) -> ParallelSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="parallel", collect=collect, timeout_s=5.0, description="parallel")
