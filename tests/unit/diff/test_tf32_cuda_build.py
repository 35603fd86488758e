"""TF32 needs a torch built against CUDA 11 or later: on a CUDA 10 build the TF32 defaults of
a torch release cannot act, whatever the GPU."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.diff.device import effective_tf32, tf32_build
from tests.helpers.manifests import full_pair


@pytest.mark.parametrize(
    ("build", "cuda", "expected"),
    [
        ("cu102", "10.2", False),
        ("cu102", None, False),
        ("cpu", None, False),
        ("cu118", None, True),
        (None, "12.1", True),
        (None, None, None),
    ],
)
def test_which_builds_can_run_tf32(build: str | None, cuda: str | None, expected: bool) -> None:
    assert tf32_build({"cuda_stack": {"torch_build": build, "torch_cuda": cuda}}) is expected


def _release_pair(build: str) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = full_pair()
    for doc, version in ((a, "1.11.0"), (b, "1.12.1")):
        doc["packages"]["installed"]["torch"]["version"] = f"{version}+{build}"
        doc["cuda_stack"].update(torch_version=f"{version}+{build}", torch_build=build)
        doc["cuda_stack"]["torch_cuda"] = "10.2" if build == "cu102" else "11.3"
    return a, b


def test_the_1_12_matmul_flip_cannot_act_on_a_cuda_10_build() -> None:
    a, b = _release_pair("cu102")
    assert effective_tf32(a, "matmul") == "no"
    flip = next(f for f in diff_documents(a, b).findings if f.rule == "flip.torch-1.12-tf32")
    assert flip.severity == "low"
    a, b = _release_pair("cu113")
    flip = next(f for f in diff_documents(a, b).findings if f.rule == "flip.torch-1.12-tf32")
    assert flip.severity == "high"


def test_a_cpu_build_under_a_job_that_declares_cuda_is_unknown_not_no_tf32() -> None:
    doc = {"cuda_stack": {"torch_build": "cpu"}, "precision": {"device": "cuda"}}
    assert tf32_build(doc) is None  # the declaration and the build disagree: check says so
    doc["precision"]["device"] = "cpu"
    assert tf32_build(doc) is False
