"""`torch.compiled`: whether Dynamo had compiled a graph when the job captured, read from the
counters Dynamo keeps. Real jobs in fresh interpreters: one eager, one through torch.compile
(the eager backend, so no C++ compiler is needed)."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.audit.facts import run_compiled
from envsnap.diff import diff_documents
from tests.unit.capturing.collectors.test_torch_runtime import run_python

JOB = """
import json, torch
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # imports torch._dynamo in 2.x
forward = torch.compile(model, backend="eager") if {compile} else model
forward(torch.randn(3, 4)).sum().backward()
optimizer.step()
import envsnap
m = envsnap.capture(only=["torch"])
print(json.dumps({{"doc": m.model_dump(mode="json")}}))
"""


def _capture(compile: bool) -> dict[str, Any]:
    data: dict[str, Any] = run_python(JOB.format(compile=compile))["doc"]
    return data


@pytest.mark.slow
def test_a_compiled_job_says_so_and_an_eager_one_that_imported_dynamo_does_not() -> None:
    eager, compiled = _capture(False), _capture(True)
    assert eager["torch"]["compiled"] is False
    assert compiled["torch"]["compiled"] is True
    assert run_compiled(compiled) == (True,)
    assert run_compiled(eager) is None  # not compiled yet is no proof it never will be
    report = diff_documents(eager, compiled)
    top = report.findings[0]
    assert (top.rule, top.severity) == ("algo.compile", "medium")
    assert any(e.path == "torch.compiled" for e in top.evidence)


def test_a_manifest_without_the_fact_re_seals_as_before() -> None:
    from envsnap.manifest.compat import omit_unset_additions

    document: dict[str, Any] = {"torch": {"compiled": None, "cpu": None, "version": "2.13.0"}}
    omit_unset_additions(document)
    assert document == {"torch": {"version": "2.13.0"}}
