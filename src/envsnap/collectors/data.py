"""`data`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.data import DataSection


def collect(context: CaptureContext) -> DataSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="data", collect=collect, timeout_s=5.0, description="data")
