"""Torch flags a record does not state (an imported collect_env report states none) cannot be
compared: effective TF32 is then inferred from torch's defaults, and is latent."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.device import effective_tf32, recorded_tf32
from tests.helpers.manifests import as_volta, full_pair

_UNSTATED = ("cudnn.allow_tf32", "cudnn.enabled", "matmul.allow_tf32", "fp32_precision")


def _flags_unstated(doc: dict[str, Any]) -> None:
    torch = doc["torch"]
    torch["unknown"] = {path: "not stated in collect_env report" for path in _UNSTATED}
    for family in ("matmul_fp32", "conv_fp32"):
        torch["effective"][family].update(
            tf32="unknown", internal_precision=None, reason="the torch TF32 flag could not be read"
        )


def test_flags_listed_as_unknown_are_not_recorded() -> None:
    a, b = full_pair()
    _flags_unstated(b)
    assert recorded_tf32(a, "conv") and recorded_tf32(a)
    assert not recorded_tf32(b, "conv") and not recorded_tf32(b)
    # cuDNN's TF32 default (on in every release) stands in for the unstated flag.
    assert effective_tf32(b, "conv") == "yes"


def test_tf32_inferred_for_an_unstated_side_is_latent_above_kernel_choice() -> None:
    a, b = full_pair()
    as_volta(a)
    for family in ("matmul_fp32", "conv_fp32"):
        a["torch"]["effective"][family]["tf32"] = "no"
    _flags_unstated(b)
    report = diff_documents(a, b)
    tf32 = [f for f in report.findings if RULES_BY_ID[f.rule].merge == "tf32"]
    assert len(tf32) == 1  # the path change 'no' -> 'unknown' and the inference are one cause
    assert tf32[0].severity == "high"
    assert tf32[0].rank_reason and "latent" in tf32[0].rank_reason
    # TF32 on B is inferred from torch's defaults, and a named precision mechanism: it ranks
    # above the generic kernel choice the architecture change brings.
    assert report.findings[0] is tf32[0]
    assert any(e.inferred and "defaults" in e.inferred for e in tf32[0].evidence)


def test_recorded_flags_on_both_sides_stay_active() -> None:
    a, b = full_pair()
    as_volta(a)
    for family in ("matmul_fp32", "conv_fp32"):
        a["torch"]["effective"][family]["tf32"] = "no"
    report = diff_documents(a, b)
    tf32 = next(f for f in report.findings if RULES_BY_ID[f.rule].merge == "tf32")
    assert tf32.severity == "high"
    assert tf32.rank_reason and "active" in tf32.rank_reason
