"""The `torch` section: the live PyTorch runtime state."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class TorchSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
