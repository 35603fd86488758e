"""A capture's content does not depend on thread timing (the torch import race).

`capture --torch` imports torch for the torch collector. The in-job collectors (precision,
seeds, parallel) describe the job's own torch state; they used to look torch up in
sys.modules while another collector's `import torch` was still running, so they saw no
torch, a half-imported one, or envsnap's own import, depending on timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors import precision, seeds
from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable, TorchHandle
from envsnap.capturing.collectors.torch_runtime import resolve_torch
from envsnap.capturing.config import CaptureConfig

# What legitimately differs between two captures of an unchanged machine.
VOLATILE_TOP = ("created_at", "digest")
VOLATILE_RUN = ("pid",)


def _stable(document: dict[str, Any]) -> dict[str, Any]:
    stable = {k: v for k, v in document.items() if k not in VOLATILE_TOP}
    stable["run"] = {k: v for k, v in document["run"].items() if k not in VOLATILE_RUN}
    stable["collectors"] = {
        name: {k: v for k, v in record.items() if k != "duration_ms"}
        for name, record in document["collectors"].items()
    }
    return stable


@pytest.mark.slow
def test_repeated_torch_captures_differ_only_in_volatile_fields(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    documents = []
    for _ in range(5):
        done = subprocess.run(
            [sys.executable, "-m", "envsnap", "capture", "--torch", "--budget", "300"],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        documents.append(json.loads(done.stdout))
    first = _stable(documents[0])
    assert first["collectors"]["torch"]["status"] == "ok"
    # envsnap's own `import torch` is not the job's: no job precision state to read.
    assert first["collectors"]["precision"]["status"] == "skipped"
    for document in documents[1:]:
        assert _stable(document) == first


def test_in_job_collectors_read_the_settled_torch_not_sys_modules(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")  # now in sys.modules, as mid-way through a race
    imported_here = TorchHandle(torch, "envsnap")
    context = CaptureContext(env={}, cwd=tmp_path, in_job=True, torch=imported_here)
    with pytest.raises(CollectorUnavailable):
        precision.collect(context)
    assert seeds.collect(context).torch_imported is False
    job = CaptureContext(env={}, cwd=tmp_path, in_job=True, torch=TorchHandle(torch, "job"))
    assert set(precision.collect(job).autocast) == {"cpu", "cuda"}
    assert seeds.collect(job).torch_imported is True


def test_resolution_says_why_there_is_no_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    context = CaptureContext(env={}, cwd=tmp_path)
    handle = resolve_torch(context)
    assert handle.module is None and handle.reason is not None and "--torch" in handle.reason
    # Asked for, but the collector is not selected: nothing is imported.
    asked = CaptureContext(env={}, cwd=tmp_path, config=CaptureConfig(import_torch=True))
    assert resolve_torch(asked, wanted=False).module is None
    assert "torch" not in sys.modules
