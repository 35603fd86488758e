"""The `cuda_stack` section: CUDA, cuDNN, cuBLAS, NCCL and torch build, read from installed files."""

from __future__ import annotations

from pydantic import ConfigDict

from envsnap.sections.base import Section


class CudaStackSection(Section):
    """Reserved: its typed fields are defined by the collector that fills it."""

    model_config = ConfigDict(extra="allow")
