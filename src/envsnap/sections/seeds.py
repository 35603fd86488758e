"""The `seeds` section: declared and observed seeds and RNG state."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class SeedsSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
