"""Findings that need both manifests: GPU architecture and TF32."""

from __future__ import annotations

from envsnap.diff import diff_documents
from envsnap.diff.catalog import RULES_BY_ID
from tests.helpers.manifests import as_volta, full_pair


def test_fewer_gpus_of_the_same_architecture_is_not_an_architecture_change() -> None:
    a, b = full_pair()
    del b["gpu"]["devices"]["1"]
    b["gpu"]["device_count"] = 1
    rules = {f.rule for f in diff_documents(a, b).findings}
    assert "precision.tf32-arch" not in rules


def test_architecture_change_without_torch_section_still_flags_tf32() -> None:
    """cuDNN TF32 is on by default, so unknown torch flags on an Ampere GPU may run TF32."""
    a, b = full_pair()
    a["torch"] = None
    b["torch"] = None
    as_volta(b)
    report = diff_documents(a, b)
    # TF32 on one GPU only is a way the GPU change acts: named in that finding, at the rule's
    # severity (likely), its evidence saying that it is inferred from defaults.
    gpu = report.findings[0]
    assert gpu.rule == "hw.gpu" and gpu.severity == "high"
    assert any(RULES_BY_ID[rule].merge == "tf32" for rule in gpu.rules)
    assert "run as TF32" in gpu.title
    inferred = [e.inferred for e in gpu.evidence if e.path.startswith("torch.effective.")]
    assert inferred and all(inferred)


def test_tf32_default_flip_is_moot_on_gpus_without_tf32() -> None:
    """torch 1.11 -> 1.12 turned matmul TF32 off by default; a V100 never ran TF32 anyway."""
    a, b = full_pair()
    for doc in (a, b):
        as_volta(doc)
    a["packages"]["installed"]["torch"]["version"] = "1.11.0+cu113"
    b["packages"]["installed"]["torch"]["version"] = "1.12.0+cu113"
    severities = {f.rule: f.severity for f in diff_documents(a, b).findings}
    assert severities["flip.torch-1.12-tf32"] == "low"
    # On the Ampere GPUs of the fixture the same flip stays high.
    a2, b2 = full_pair()
    a2["packages"]["installed"]["torch"]["version"] = "1.11.0+cu113"
    b2["packages"]["installed"]["torch"]["version"] = "1.12.0+cu113"
    severities = {f.rule: f.severity for f in diff_documents(a2, b2).findings}
    assert severities["flip.torch-1.12-tf32"] == "high"


def test_tf32_flag_change_on_gpus_without_tf32_ranks_low() -> None:
    a, b = full_pair()
    for doc in (a, b):
        as_volta(doc)
    b["torch"]["matmul"]["allow_tf32"] = not a["torch"]["matmul"]["allow_tf32"]
    severities = {f.rule: f.severity for f in diff_documents(a, b).findings}
    assert severities["precision.tf32-matmul"] == "low"
