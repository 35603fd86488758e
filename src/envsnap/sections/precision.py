"""The `precision` section: dtypes, autocast, loss scaling and optimizer state."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class PrecisionSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
