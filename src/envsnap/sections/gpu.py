"""The `gpu` section: GPU devices and driver, read through NVML."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class GpuSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
