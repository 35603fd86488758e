"""The CUDA libraries a toolkit package ships are that package's change: one cause, one finding.

A conda torch loads cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE, the runtime and NVRTC from the
environment's one `cudatoolkit` package (conda-forge and the pytorch channel; NVIDIA's
channel splits them into `cuda-*` packages instead). The record then states each library at
the package's version, `cudatoolkit 11.1` for all of them: changing that package is one change
of the CUDA toolkit, not six library upgrades. Where both sides load a library from such a
package, its hits join the CUDA toolkit finding as the libraries it moves. A library from a
package of its own (a pip `nvidia-cublas-cu12`, a conda `cudnn` or `nccl`) stays a finding
of its own.
"""

from __future__ import annotations

import re
from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, get, way_of

Doc = dict[str, Any]
TOOLKIT_CAUSE = "cuda-variant"  # the merged CUDA toolkit / torch CUDA build finding
TOOLKIT_PACKAGES = frozenset({"cudatoolkit"})
_LIBRARY = re.compile(r"cuda_stack\.libraries\.(?P<name>[^.\[]+)\.")


def _from_toolkit_package(doc: Doc, library: str) -> str | None:
    package = get(doc, f"cuda_stack.libraries.{library}.selected.package")
    return package if package in TOOLKIT_PACKAGES else None


def join_toolkit_libraries(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """The hits of libraries both sides load from a toolkit package, joined to the CUDA
    toolkit finding; unchanged when that finding is absent."""
    if not any(RULES_BY_ID[hit.rule].merge == TOOLKIT_CAUSE for hit in hits):
        return hits
    shipped: dict[int, str] = {}
    for index, hit in enumerate(hits):
        found = _LIBRARY.match(hit.path)
        rule = RULES_BY_ID[hit.rule]
        if found is None or rule.merge == TOOLKIT_CAUSE or rule.category == "noise":
            continue
        package = _from_toolkit_package(a, found["name"])
        if package is not None and package == _from_toolkit_package(b, found["name"]):
            shipped[index] = found["name"]
    if not shipped:
        return hits
    package = next(p for p in (_from_toolkit_package(a, n) for n in shipped.values()) if p)
    title = f"{', '.join(sorted(set(shipped.values())))} from the {package} package"
    return [
        way_of(hit, TOOLKIT_CAUSE, title=title) if index in shipped else hit
        for index, hit in enumerate(hits)
    ]
