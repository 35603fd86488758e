"""`cuda_stack`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.cuda_stack import CudaStackSection


def collect(context: CaptureContext) -> CudaStackSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="cuda_stack", collect=collect, timeout_s=5.0, description="cuda_stack")
