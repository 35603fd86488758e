"""The probe changes where the numerics change, and only there."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch

from envsnap.probe import run_probe, suite
from envsnap.probe.digest import bits_digest


def digests(record: dict[str, Any], device: str = "cpu") -> dict[str, Any]:
    return {name: op["digest"] for name, op in record["devices"][device]["ops"].items()}


def cpu_probe() -> dict[str, Any]:
    return run_probe(["cpu"])["devices"]["cpu"]["ops"]  # type: ignore[index,no-any-return]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two CPUs to run two threads")
def test_the_thread_count_changes_sum_threads_n_but_not_sum_threads_1() -> None:
    torch.set_num_threads(1)
    one = cpu_probe()
    torch.set_num_threads(2)
    two = cpu_probe()
    assert one["sum_threads_n"]["digest"] == one["sum_threads_1"]["digest"]
    assert two["sum_threads_n"]["digest"] != one["sum_threads_n"]["digest"]
    assert two["sum_threads_1"]["digest"] == one["sum_threads_1"]["digest"]


def input_digests() -> dict[str, list[str]]:
    return {op.name: [bits_digest(x) for x in suite.make_inputs(torch, op)] for op in suite.OPS}


def test_the_job_default_dtype_and_matmul_precision_do_not_change_the_inputs() -> None:
    baseline = input_digests()
    probe = digests(run_probe(["cpu"]))
    torch.set_default_dtype(torch.float64)
    assert input_digests() == baseline
    assert digests(run_probe(["cpu"])) == probe  # every op states its dtypes
    torch.set_default_dtype(torch.float32)
    torch.set_float32_matmul_precision("medium")
    torch.set_grad_enabled(False)
    assert input_digests() == baseline


def test_inputs_are_exact_multiples_of_2_to_the_minus_23_in_the_unit_interval() -> None:
    # What makes them machine-independent (see suite's docstring).
    square = suite.OPS[0]
    for x in suite.make_inputs(torch, square):
        scaled = x.double() * 2**23
        assert torch.equal(scaled, scaled.round())
        assert x.min() >= -1 and x.max() < 1


def _bf16_matmul_supported() -> bool:
    # oneDNN runs fp32 matmuls in bf16 only on CPUs with native bf16 (avx512_bf16, AMX, or
    # avx512bw/vl/dq emulation); torch reports that here.
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


@pytest.mark.parametrize("setting", ["mkldnn_bf16", "float32_matmul_precision_medium"])
def test_the_cpu_fp32_matmul_precision_shows_exactly_when_the_cpu_honours_it(
    setting: str,
) -> None:
    """torch >= 2.9 lets oneDNN compute fp32 matmuls in bf16 on the CPU
    (https://docs.pytorch.org/docs/stable/notes/mkldnn.html); "medium" sets the same flag."""
    baseline = cpu_probe()
    if setting == "mkldnn_bf16":
        torch.backends.mkldnn.matmul.fp32_precision = "bf16"
    else:
        torch.set_float32_matmul_precision("medium")
    assert torch.backends.mkldnn.matmul.fp32_precision == "bf16"
    lowered = cpu_probe()
    names = ("matmul_fp32_square", "matmul_fp32_splitk", "matmul_fp32_batched")
    if _bf16_matmul_supported():
        # Not observed yet (the dev machine is AVX2-only). torch sends an fp32 matmul to oneDNN
        # when M*K*N (times the batch) > 16**3, which all three exceed: `checksize` in
        # https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/mkldnn/Matmul.cpp
        for name in names:
            assert lowered[name]["digest"] != baseline[name]["digest"], name
            assert lowered[name]["max_rel_error"] > 1e-4, name  # bf16-level, not fp32 (~1e-7)
    else:  # observed on an AVX2 CPU: torch falls back to fp32, bit for bit
        for name in names:
            assert lowered[name] == baseline[name], name
