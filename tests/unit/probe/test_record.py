"""The probe record: its shape, plain JSON, and that it never raises."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from typing import Any

import pytest
import torch

from envsnap.probe import PROBE_SUITE, run_probe, suite

_NAME = re.compile(r"^[a-z0-9_]+$")
_DEVICE_KEYS = ["status", "reason", "name", "capability", "threads", "elapsed_ms", "ops"]
_OP_KEYS = ["family", "status", "digest", "max_rel_error", "repeat_equal", "reason"]


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return run_probe()


def test_the_record_is_plain_json_in_the_documented_shape(record: dict[str, Any]) -> None:
    assert list(record) == ["suite", "torch", "elapsed_ms", "devices"]
    assert record["suite"] == PROBE_SUITE == "envsnap-probe/2"
    assert record["torch"] == torch.__version__
    assert json.loads(json.dumps(record)) == record
    assert list(record["devices"]) == ["cpu"]  # no GPU here: None means cpu alone
    cpu = record["devices"]["cpu"]
    assert list(cpu) == _DEVICE_KEYS
    assert cpu["status"] == "ok"
    assert cpu["threads"] == torch.get_num_threads()
    assert cpu["capability"] == torch.backends.cpu.get_cpu_capability()
    assert list(cpu["ops"]) == [op.name for op in suite.OPS]
    for name, op in cpu["ops"].items():
        assert _NAME.match(name), name
        assert _NAME.match(op["family"]), op["family"]
        assert list(op) == _OP_KEYS
        assert op["status"] in ("ok", "unsupported", "error")


def test_every_cpu_op_runs_except_the_gpu_only_attention_backends(record: dict[str, Any]) -> None:
    ops = record["devices"]["cpu"]["ops"]
    statuses = {name: op["status"] for name, op in ops.items()}
    assert statuses.pop("sdpa_efficient") == "unsupported"
    assert statuses.pop("sdpa_cudnn") == "unsupported"
    assert "RuntimeError" in ops["sdpa_cudnn"]["reason"]
    assert set(statuses.values()) == {"ok"}, statuses
    for name in statuses:
        assert re.fullmatch(r"[0-9a-f]{16}", ops[name]["digest"]), name
        assert ops[name]["repeat_equal"] is True, name  # the CPU kernels are deterministic


def test_errors_are_fp32_small_bf16_large_and_absent_for_rng(record: dict[str, Any]) -> None:
    ops = record["devices"]["cpu"]["ops"]
    for name in ("matmul_fp32_square", "matmul_fp32_splitk", "conv2d_fp32", "softmax"):
        assert 0 < ops[name]["max_rel_error"] < 1e-5, name
    assert 1e-4 < ops["matmul_bf16"]["max_rel_error"] < 3e-2  # bf16 output: 8 bits
    assert all(ops[name]["max_rel_error"] is None for name in ("rng_randn", "rng_dropout"))


def _explodes(ctx: suite.Context, inputs: suite.Inputs) -> Any:
    raise ValueError("x" * 300)


def test_a_failing_op_is_recorded_and_the_rest_still_run(monkeypatch: pytest.MonkeyPatch) -> None:
    index = [op.name for op in suite.OPS].index("softmax")
    ops = list(suite.OPS)
    ops[index] = dataclasses.replace(ops[index], run=_explodes)
    monkeypatch.setattr(suite, "OPS", tuple(ops))
    cpu = run_probe(["cpu"])["devices"]["cpu"]  # type: ignore[index]
    assert cpu["status"] == "ok"
    failed = cpu["ops"]["softmax"]
    assert failed["status"] == "error"
    assert failed["digest"] is None
    assert failed["reason"] == "ValueError: " + "x" * 120
    assert cpu["ops"]["layer_norm"]["status"] == "ok"


def test_devices_that_cannot_run_are_recorded_never_raised() -> None:
    record = run_probe(["cuda:0", "not-a-device", "cpu", "cpu"])
    devices = record["devices"]
    assert list(devices) == ["cuda:0", "not-a-device", "cpu"]  # asked order, no duplicate
    assert devices["cuda:0"]["status"] == "unavailable"  # type: ignore[index]
    assert devices["cuda:0"]["reason"] == "CUDA is not available"  # type: ignore[index]
    assert devices["not-a-device"]["status"] == "error"  # type: ignore[index]
    assert devices["not-a-device"]["reason"].startswith("RuntimeError")  # type: ignore[index]
    assert devices["cpu"]["status"] == "ok"  # type: ignore[index]


def _python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=240, check=True
    )
    return result.stdout


def test_importing_the_package_does_not_import_torch() -> None:
    out = _python("import sys, envsnap.probe; print('torch' in sys.modules)")
    assert out.strip() == "False"


def test_without_torch_every_device_is_unavailable_with_a_reason() -> None:
    # sys.modules["torch"] = None makes `import torch` fail as if torch were not installed.
    code = (
        "import sys, json; sys.modules['torch'] = None\n"
        "from envsnap.probe import run_probe\n"
        "print(json.dumps([run_probe(), run_probe(['cpu', 'cuda:1'])]))"
    )
    default, explicit = json.loads(_python(code))
    assert default["torch"] is None
    assert list(default["devices"]) == ["cpu"]
    assert list(explicit["devices"]) == ["cpu", "cuda:1"]
    for device in [*default["devices"].values(), *explicit["devices"].values()]:
        assert device["status"] == "unavailable"
        assert device["reason"].startswith("torch is not importable: ModuleNotFoundError")
        assert device["ops"] == {}
