"""The probe leaves the job's torch state exactly as it found it, even when an op raises."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
import torch

from envsnap.probe import run_probe, state, suite


def _read(get: Callable[[], Any]) -> Any:
    # A getter may raise (torch does on a legacy TF32 read after the new API was used): then the
    # same error must come back afterwards.
    try:
        value = get()
    except Exception as exc:
        return f"raises {type(exc).__name__}"
    return value.clone() if isinstance(value, torch.Tensor) else value


def observe() -> dict[str, Any]:
    """Every setting the probe must not change, read through torch's public API."""
    b = torch.backends
    getters: dict[str, Callable[[], Any]] = {
        "rng": torch.get_rng_state,
        "threads": torch.get_num_threads,
        "interop_threads": torch.get_num_interop_threads,
        "cuda.matmul.allow_tf32": lambda: b.cuda.matmul.allow_tf32,
        "cudnn.allow_tf32": lambda: b.cudnn.allow_tf32,
        "cudnn.benchmark": lambda: b.cudnn.benchmark,
        "cudnn.deterministic": lambda: b.cudnn.deterministic,
        "cudnn.enabled": lambda: b.cudnn.enabled,
        "float32_matmul_precision": torch.get_float32_matmul_precision,
        "mkldnn.enabled": lambda: b.mkldnn.enabled,
        "mkldnn.deterministic": lambda: b.mkldnn.deterministic,
        "mkldnn.fp32_precision": lambda: b.mkldnn.fp32_precision,
        "mkldnn.matmul.fp32_precision": lambda: b.mkldnn.matmul.fp32_precision,
        "mkldnn.conv.fp32_precision": lambda: b.mkldnn.conv.fp32_precision,
        "deterministic": torch.are_deterministic_algorithms_enabled,
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled,
        "default_dtype": torch.get_default_dtype,
        "grad": torch.is_grad_enabled,
        "flash_sdp": b.cuda.flash_sdp_enabled,
        "math_sdp": b.cuda.math_sdp_enabled,
        "mem_efficient_sdp": b.cuda.mem_efficient_sdp_enabled,
        "cudnn_sdp": b.cuda.cudnn_sdp_enabled,
    }
    return {name: _read(get) for name, get in getters.items()}


def assert_same(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, torch.Tensor):
            assert torch.equal(value, after[name]), name
        else:
            assert after[name] == value, name


def _unusual_legacy() -> None:
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)
    torch.set_grad_enabled(False)
    torch.set_float32_matmul_precision("medium")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.mkldnn.deterministic = True
    torch.manual_seed(1234)


def _unusual_new_api() -> None:
    # The fp32_precision API of torch >= 2.9; with it, get_float32_matmul_precision() raises,
    # and must still raise afterwards rather than have been "fixed" by the probe.
    torch.backends.mkldnn.matmul.fp32_precision = "bf16"
    torch.backends.mkldnn.conv.fp32_precision = "tf32"
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.manual_seed(99)


@pytest.mark.parametrize("configure", [_unusual_legacy, _unusual_new_api])
def test_the_job_settings_are_the_same_after_the_probe(configure: Callable[[], None]) -> None:
    configure()
    before = observe()
    record = run_probe()
    assert_same(before, observe())
    assert record["devices"]["cpu"]["status"] == "ok"  # type: ignore[index]


def test_the_next_random_number_is_the_one_the_job_would_have_drawn() -> None:
    torch.manual_seed(2024)
    expected = torch.rand(5)
    torch.manual_seed(2024)
    saved = torch.get_rng_state()
    run_probe()
    assert bytes(torch.get_rng_state().tolist()) == bytes(saved.tolist())
    assert torch.equal(torch.rand(5), expected)


def _breaks_state_then_raises(ctx: suite.Context, inputs: suite.Inputs) -> Any:
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(7)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = True
    torch.backends.mkldnn.enabled = False
    torch.set_float32_matmul_precision("high")
    raise RuntimeError("boom in the middle")


def test_state_is_restored_when_an_op_raises_half_way(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.set_num_threads(2 if torch.get_num_threads() == 1 else torch.get_num_threads())
    torch.manual_seed(5)
    bad = dataclasses.replace(suite.OPS[0], run=_breaks_state_then_raises)
    monkeypatch.setattr(suite, "OPS", (bad, *suite.OPS[1:]))
    before = observe()
    record = run_probe()
    assert_same(before, observe())
    op = record["devices"]["cpu"]["ops"][bad.name]  # type: ignore[index]
    assert op["status"] == "error"
    assert op["reason"] == "RuntimeError: boom in the middle"


def test_restore_writes_back_only_what_changed() -> None:
    saved = state.snapshot(torch)
    assert state.restore(torch, saved) == []  # nothing changed: nothing written
    torch.set_num_threads(1 if torch.get_num_threads() != 1 else 2)
    torch.set_default_dtype(torch.float64)
    written = state.restore(torch, saved)
    assert written == ["num_threads", "default_dtype"]
    assert torch.get_num_threads() == saved["num_threads"]
    assert torch.get_default_dtype() is torch.float32
