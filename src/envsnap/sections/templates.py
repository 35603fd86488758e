"""The `templates` section: prompt and chat template digests."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class TemplatesSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
