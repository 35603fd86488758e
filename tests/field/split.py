"""The field corpus's development / evaluation split, drawn before the differ v3 work began.

`SPLIT_SEED` was drawn once from `os.urandom(16)` on 2026-12-02, before any v3 case was built
or run, and committed before any fix. A case's half is the parity of the first byte of
sha256(seed + case id), so the split is fixed for every case, old and new, and nobody picks
which half a case lands in: fixes are made against the development half only, and the
evaluation half is scored at the end.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Half = Literal["dev", "eval"]
SPLIT_SEED = "d2ba4d0741922aeba008a3f65dbcce7c"


def half(case_id: str) -> Half:
    """The half a case belongs to."""
    digest = hashlib.sha256(f"{SPLIT_SEED}:{case_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "eval"


# The cases added on 2026-12-04, each written from its thread and committed with its label
# (6631b83) before any was captured or scored: the evaluation ones among them are the first
# that nobody read while fixing (`python -m tests.field --fresh`).
FRESH = frozenset(
    {
        "bert-score-147-roberta-prefix-space-transformers-417",
        "detectron2-5348-cudnn-tf32-volta-to-ampere-ci",
        "hf-datasets-4889-torchaudio012-mp3-ffmpeg-decoding",
        "horizonnet-4-worker-numpy-seed-augmentation",
        "language-recognition-5-librosa-06-spectrogram",
        "llama-cpp-3772-driver-545-multi-gpu-garbage",
        "mar-69-autocast-fp16-nan-bf16",
        "nccl-1055-ring-allreduce-precision-a800",
        "nccl-2198-rma-subwindow-offset-corruption",
        "opennmt-py-2418-torch20-nucleus-sampling-outputs",
        "opennmt-py-526-ga-token-normalization-fix",
        "paddle-models-1758-cudnn7-bn-moving-stats",
        "patchtst-7-test-drop-last",
        "pt-176584-philox-grid-rtx4090d-vs-h20",
        "pt-194676-cuda-rng-t4-vs-l4",
        "pt-196613-cuda-rng-sm-count-a10g-vs-h100-pcie",
        "pt-69449-fp16-nan-gtx1660s-cu113-vs-cu102",
        "scio-51-torch212-fp16-rng-expected-tensors",
        "te-2186-cudnn-sdpa-bwd-workspace-hopper",
        "te-2236-cudnn-914-fp8-current-scaling-attention",
        "te-3173-cudnn-9232-mxfp8-attention-nan",
        "te-3249-cudnn-926-thd-sink-grad-h100",
        "video-prediction-13-cudnn-731-worse-training-loss",
        "vivarium-442-pythonhashseed-set-order",
        "xformers-96-favor-fp16-attention-overflow",
    }
)
