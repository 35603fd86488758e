"""`templates`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.templates import TemplatesSection


def collect(context: CaptureContext) -> TemplatesSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="templates", collect=collect, timeout_s=5.0, description="templates")
