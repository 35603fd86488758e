"""The NVML stand-in a field job installs before it captures: the project's fake binding
(tests/fixtures/nvml/fake_nvml.py, real nvidia-ml-py errors and constants) answering from a
case's GPU files, its driver and the noise model's board ids instead of devices.json.

`install(spec)` puts it where envsnap's gpu collector finds its binding: `sys.modules["pynvml"]`
(the collector imports pynvml, and skips loading the driver's library when the module is
already there, as the unit tests of the collector install theirs).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from tests.fixtures.nvml.fake_nvml import FakeNvml


@dataclass
class FieldNvml(FakeNvml):
    """A FakeNvml whose boards and driver come from a spec, not from devices.json."""

    boards: list[dict[str, Any]] = field(default_factory=list)
    driver: str = ""
    cuda_driver: int = 0

    def __post_init__(self) -> None:
        self.specs = [dict(board) for board in self.boards]

    def nvmlSystemGetDriverVersion(self) -> str:
        self._check("nvmlSystemGetDriverVersion")
        return self.driver

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        self._check("nvmlSystemGetCudaDriverVersion_v2")
        return self.cuda_driver

    def nvmlSystemGetNVMLVersion(self) -> str:
        # NVML reports '<CUDA major>.<driver version>' (devices.json's system entry).
        self._check("nvmlSystemGetNVMLVersion")
        return f"{self.cuda_driver // 1000}.{self.driver}"


def standin(spec: dict[str, Any]) -> FieldNvml:
    """Build the stand-in from {"boards": [gpu file + uuid + pci_bus_id], "driver", "cuda_driver"}."""
    boards = spec["boards"]
    return FieldNvml(
        keys=[str(index) for index in range(len(boards))],
        boards=boards,
        driver=str(spec["driver"]),
        cuda_driver=int(spec["cuda_driver"]),
    )


def install(spec: dict[str, Any]) -> FieldNvml:
    nvml = standin(spec)
    sys.modules["pynvml"] = nvml  # type: ignore[assignment]
    return nvml
