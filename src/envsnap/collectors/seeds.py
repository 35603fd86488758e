"""`seeds`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.seeds import SeedsSection


def collect(context: CaptureContext) -> SeedsSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="seeds", collect=collect, timeout_s=5.0, description="seeds")
