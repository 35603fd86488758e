"""A conda torch loads the environment's CUDA packages: their changes are CUDA-stack findings."""

from __future__ import annotations

import pytest

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


@pytest.mark.parametrize(
    ("package", "old", "new", "rule"),
    [
        ("cudatoolkit", "10.2.89", "11.0.221", "stack.cuda-toolkit"),
        ("cudnn", "7.6.5", "8.0.5", "stack.cudnn"),
        ("nccl", "2.8.3.1", "2.10.3.1", "stack.nccl"),
    ],
)
def test_a_conda_cuda_package_change_is_its_library_s_finding(
    package: str, old: str, new: str, rule: str
) -> None:
    a, b = full_pair()
    for doc, version in ((a, old), (b, new)):
        doc["packages"]["conda"] = {package: {"version": version, "build": "h_0", "channel": None}}
    findings = diff_documents(a, b, target="conclusion").findings
    assert findings[0].rule == rule, [f.rule for f in findings]
    assert "stack.package" not in [f.rule for f in findings]
