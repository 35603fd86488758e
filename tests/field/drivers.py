"""NVIDIA Linux driver branches: the CUDA version each reports, and real patch releases.

A driver's branch is its first number (535 in 535.104.05). NVML's CUDA driver version
(`nvmlSystemGetCudaDriverVersion_v2`, the "CUDA Version" nvidia-smi prints) is the newest CUDA
the branch supports: the CUDA toolkit release notes, table "CUDA Toolkit and Corresponding
Driver Versions" (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html), list the
branch each toolkit shipped with. Patch releases within a branch are from NVIDIA's Unix driver
archive (https://www.nvidia.com/en-us/drivers/unix/linux-amd64-display-archive/) and the data
center driver release notes (https://docs.nvidia.com/datacenter/tesla/index.html); the noise
model draws a patch from its branch's list, never another branch.
"""

from __future__ import annotations

import re

# Branch -> CUDA version its NVML reports, encoded as NVML does (1000 * major + 10 * minor).
CUDA_BY_BRANCH: dict[str, int] = {
    "418": 10010,
    "440": 10020,
    "450": 11000,
    "455": 11010,
    "460": 11020,
    "465": 11030,
    "470": 11040,
    "495": 11050,
    "510": 11060,
    "515": 11070,
    "520": 11080,
    "525": 12000,
    "530": 12010,
    "535": 12020,
    "545": 12030,
    "550": 12040,
    "555": 12050,
    "560": 12060,
    "570": 12080,
    "575": 12090,
    "580": 13000,
}

PATCHES: dict[str, tuple[str, ...]] = {
    "418": ("418.87.01", "418.126.02", "418.152.00"),
    "440": ("440.33.01", "440.64.00", "440.100"),
    "450": ("450.51.05", "450.80.02", "450.102.04", "450.119.04"),
    "455": ("455.23.05", "455.32.00", "455.45.01"),
    "460": ("460.32.03", "460.73.01", "460.91.03"),
    "465": ("465.19.01", "465.27", "465.31"),
    "470": ("470.57.02", "470.82.01", "470.103.01", "470.141.03", "470.161.03", "470.199.02"),
    "495": ("495.29.05", "495.44", "495.46"),
    "510": ("510.47.03", "510.73.05", "510.85.02"),
    "515": ("515.48.07", "515.65.01", "515.86.01"),
    "520": ("520.56.06", "520.61.05"),
    "525": ("525.60.13", "525.85.12", "525.105.17", "525.125.06", "525.147.05"),
    "530": ("530.30.02", "530.41.03"),
    "535": (
        "535.54.03",
        "535.86.10",
        "535.104.05",
        "535.129.03",
        "535.154.05",
        "535.183.01",
        "535.216.01",
    ),
    "545": ("545.23.06", "545.23.08", "545.29.06"),
    "550": ("550.54.14", "550.54.15", "550.90.07", "550.127.05", "550.144.03"),
    "555": ("555.42.02", "555.42.06", "555.58.02"),
    "560": ("560.28.03", "560.35.03"),
    "570": ("570.86.15", "570.124.06", "570.133.20", "570.158.01"),
    "575": ("575.51.03", "575.57.08", "575.64.03"),
    "580": ("580.65.06", "580.82.07", "580.95.05"),
}

# A case may state a driver to the precision its thread does: a full version, or the branch.
_FULL = re.compile(r"^(?P<branch>\d{3})\.\d+(\.\d+)?$")
_BRANCH = re.compile(r"^(?P<branch>\d{3})$")


def branch_of(driver: str) -> str | None:
    """'535.104.05' -> '535'; '535' -> '535'; anything else -> None."""
    match = _FULL.match(driver) or _BRANCH.match(driver)
    return match["branch"] if match else None


def is_branch_only(driver: str) -> bool:
    """True when a case states only the branch ('535'): the noise model picks the patch."""
    return _BRANCH.match(driver) is not None


def cuda_driver_version(driver: str) -> int | None:
    """The CUDA version NVML reports for a driver, or None for a branch not in the table."""
    branch = branch_of(driver)
    return CUDA_BY_BRANCH.get(branch) if branch else None
