"""`precision.device`: where the job's math runs. A job may declare it (it often captures before
`model.to(device)`, or passes no model); the declaration wins over the parameters' device, which
is kept beside it, and `envsnap check` says when the capture contradicts the declaration."""

from __future__ import annotations

from typing import Any

import torch

from envsnap.capturing.api import capture
from envsnap.diff import diff_documents
from envsnap.diff.check import check_document
from envsnap.diff.device import gpu_in_use


def _precision(**declared: Any) -> dict[str, Any]:
    model = torch.nn.Linear(4, 2)  # parameters on the CPU
    manifest = capture(only=["precision", "torch"], model=model, precision=declared or None)
    doc: dict[str, Any] = manifest.model_dump(mode="json")
    return doc


def test_the_parameters_device_is_the_device_when_nothing_is_declared() -> None:
    precision = _precision()["precision"]
    assert (precision["device"], precision["params_device"]) == ("cpu", "cpu")
    assert "device" not in precision["sources"]


def test_a_declared_device_wins_and_the_parameters_device_is_kept() -> None:
    doc = _precision(amp_dtype="none", device="cuda:0")
    precision = doc["precision"]
    assert (precision["device"], precision["params_device"]) == ("cuda:0", "cpu")
    assert precision["sources"]["device"] == "api"
    assert gpu_in_use(doc) is True


def test_check_says_when_the_capture_contradicts_the_declared_device() -> None:
    doc = _precision(device="cuda")
    doc["torch"]["cuda_available"] = False  # as this CPU build of torch reports it
    hits = [(f.rule, f.severity) for f in check_document(doc, "close").findings]
    assert ("check.declared-device", "medium") in hits
    doc["torch"]["cuda_available"] = True  # a GPU host, captured before model.to("cuda")
    found = [f for f in check_document(doc, "close").findings if f.rule == "check.declared-device"]
    assert [(f.severity, "parameters were on cpu" in f.title) for f in found] == [("info", True)]
    undeclared = _precision()
    assert not any(
        f.rule == "check.declared-device" for f in check_document(undeclared, "close").findings
    )


def test_a_device_declared_on_both_sides_lets_gpu_rules_act() -> None:
    a = _precision(device="cuda")
    b = _precision(device="cuda")
    for doc, version in ((a, "2.27.5"), (b, "2.29.7")):
        doc["packages"] = {"installed": {"nvidia-nccl-cu12": {"version": version}}}
    nccl = [f for f in diff_documents(a, b).findings if f.rule == "stack.nccl"]
    assert nccl and "neither side ran on a GPU" not in nccl[0].title
    assert nccl[0].severity != "info"
    a["precision"]["device"] = b["precision"]["device"] = "cpu"
    gated = [f for f in diff_documents(a, b).findings if f.rule == "stack.nccl"]
    assert gated and gated[0].severity == "info"


def test_where_the_parameters_were_at_capture_is_bookkeeping() -> None:
    a = _precision(device="cuda")
    b = _precision(device="cuda")
    b["precision"]["params_device"] = "cuda"
    rules = {f.rule for f in diff_documents(a, b).findings}
    assert "hw.device" not in rules and "fallback" not in rules
