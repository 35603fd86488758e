"""`torch`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.torch_runtime import TorchSection


def collect(context: CaptureContext) -> TorchSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="torch", collect=collect, timeout_s=5.0, description="torch")
