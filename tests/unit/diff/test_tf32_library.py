"""A CUDA build or toolkit change brings other cuDNN/cuBLAS: with TF32 allowed on both sides,
the library's kernel choice can move fp32 math to or from TF32."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.report import Report
from tests.helpers.manifests import full_pair

Doc = dict[str, Any]


def _build(doc: Doc, version: str) -> None:
    doc["packages"]["installed"]["torch"]["version"] = version
    doc["torch"]["version"] = version
    doc["cuda_stack"]["torch_version"] = version
    doc["cuda_stack"]["torch_build"] = version.split("+")[1]


def _cudnn_unknown(doc: Doc) -> None:
    """The cuDNN version is not recorded (as in a record that does not state it)."""
    doc["torch"]["cudnn"]["version"] = None
    doc["torch"]["unknown"]["cudnn.version"] = "not stated"
    doc["cuda_stack"]["libraries"]["cudnn"]["version"] = None
    doc["cuda_stack"]["unknown"]["libraries.cudnn.version"] = "not stated"
    doc["packages"]["installed"].pop("nvidia-cudnn-cu12", None)


def _pair(cudnn_a: bool = False, cudnn_b: bool = False) -> tuple[Doc, Doc]:
    a, b = full_pair()
    _build(a, "2.7.0+cu126")
    _build(b, "2.7.0+cu128")
    for doc, unknown in ((a, cudnn_a), (b, cudnn_b)):
        doc["precision"]["amp_dtype"] = None  # an fp32 job (the fixture declares bf16 AMP)
        if unknown:
            _cudnn_unknown(doc)
    return a, b


def _library(report: Report) -> list[str]:
    return [f.rule for f in report.findings if f.rule == "precision.tf32-library"]


def test_build_change_with_tf32_allowed_and_cudnn_unrecorded_leads() -> None:
    a, b = _pair(cudnn_b=True)
    report = diff_documents(a, b)
    top = report.findings[0]
    # The fixture allows TF32 for convolutions (cuDNN's default) on an A100 on both sides.
    assert top.rule == "precision.tf32-library", [f.rule for f in report.findings]
    assert "cuDNN" in top.title and "cu126 → cu128" in top.title
    assert top.rank_reason and "active" in top.rank_reason
    # The wheel's CUDA tag and the toolkit it names are one finding, the tag in its evidence.
    variant = [
        f for f in report.findings[1:] if f.rule in ("stack.cuda-build", "stack.cuda-toolkit")
    ]
    assert len(variant) == 1
    assert "packages.installed.torch.version" in [e.path for e in variant[0].evidence]


def test_same_cudnn_recorded_on_both_sides_cannot_move_tf32() -> None:
    a, b = _pair()
    assert _library(diff_documents(a, b)) == []


def test_tf32_not_allowed_on_either_side_gives_nothing() -> None:
    a, b = _pair(cudnn_b=True)
    for doc in (a, b):
        doc["torch"]["cudnn"]["allow_tf32"] = False
        doc["torch"]["effective"]["conv_fp32"]["tf32"] = "no"
    assert _library(diff_documents(a, b)) == []


def test_reduced_precision_autocast_on_both_sides_makes_it_latent() -> None:
    a, b = _pair(cudnn_b=True)
    for doc in (a, b):
        doc["precision"]["amp_dtype"] = "float16"
    finding = next(f for f in diff_documents(a, b).findings if f.rule == "precision.tf32-library")
    assert finding.rank_reason and "latent" in finding.rank_reason
