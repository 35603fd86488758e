"""The `parallel` section: distributed layout and batch semantics."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class ParallelSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
