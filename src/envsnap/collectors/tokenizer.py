"""`tokenizer`: placeholder until its collector lands."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.sections.tokenizer import TokenizerSection


def collect(context: CaptureContext) -> TokenizerSection:
    raise CollectorUnavailable("not implemented yet")


COLLECTOR = Collector(name="tokenizer", collect=collect, timeout_s=5.0, description="tokenizer")
