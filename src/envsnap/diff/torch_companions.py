"""A torch-family companion released alone is a preprocessing change.

torchvision, torchaudio and torchcodec ship in step with torch, so beside a torch release
their bumps are that release's finding (`stack.torch`, "with it: torchvision ..."). Under one
and the same torch the kernels torch runs did not change: what a companion's own release
changes is how the job's inputs are made, its transforms and decoders: torchvision 0.2.1's
`ToTensor` stopped scaling float arrays by 1/255 (gengshan-y/high-res-stereo#4 works around
it); torchvision 0.17 changed the default of `antialias` to True (its release notes);
torchaudio 2.1 made FFmpeg the default backend of `load` (torchaudio 2.0.1's docs announce it).
Such a bump is a `stack.preprocessing` finding, as a Pillow or OpenCV release is.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from envsnap.diff.derived import Hit, get
from envsnap.diff.device import torch_version

Doc = dict[str, Any]
TORCH_RULE = "stack.torch"
PREPROCESSING_RULE = "stack.preprocessing"
_COMPANION = re.compile(r"packages\.installed\.(torchvision|torchaudio|torchcodec)\.version")


def _torch(doc: Doc) -> str | None:
    """torch's version as the record states it: installed, else as CUDA-stack or runtime facts."""
    installed = get(doc, "packages.installed.torch.version")
    return installed if isinstance(installed, str) else torch_version(doc)


def companions_alone(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """With one torch release on both sides, a companion's bump as a preprocessing change."""
    torch_a, torch_b = _torch(a), _torch(b)
    if torch_a is None or torch_a != torch_b:
        return hits
    return [
        replace(hit, rule=PREPROCESSING_RULE, qualifier="the same torch on both sides")
        if hit.rule == TORCH_RULE and hit.consequence_of is None and _COMPANION.fullmatch(hit.path)
        else hit
        for hit in hits
    ]
