"""`precision`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.precision import PrecisionSection


def collect(context: CaptureContext) -> PrecisionSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="precision", collect=collect, timeout_s=5.0, description="precision")
