"""The probe changes where the numerics change, and only there."""

from __future__ import annotations

import dataclasses
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
def test_the_thread_count_changes_sum_threads_n_and_no_other_op() -> None:
    torch.set_num_threads(1)
    one = cpu_probe()
    torch.set_num_threads(2)
    two = cpu_probe()
    assert one["sum_threads_n"]["digest"] == one["sum_threads_1"]["digest"]
    assert two["sum_threads_n"]["digest"] != one["sum_threads_n"]["digest"]
    # Every other op runs at one thread: the job's count shows in the threads family alone.
    others = [name for name in one if name != "sum_threads_n"]
    assert [two[name]["digest"] for name in others] == [one[name]["digest"] for name in others]


def test_only_the_job_thread_op_runs_at_the_job_s_count(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, int] = {}

    def spied(op: suite.Op) -> suite.Op:
        def spy(ctx: suite.Context, x: Any) -> Any:
            seen[op.name] = torch.get_num_threads()
            return op.run(ctx, x)

        return dataclasses.replace(op, run=spy)

    monkeypatch.setattr(suite, "OPS", tuple(spied(op) for op in suite.OPS))
    torch.set_num_threads(2)
    run_probe(["cpu"])
    assert seen.pop("sum_threads_n") == 2
    assert set(seen.values()) == {1}
    assert torch.get_num_threads() == 2


def input_digests() -> dict[str, list[str]]:
    pool = suite.make_pool(torch)
    return {
        op.name: [bits_digest(x) for x in suite.make_inputs(torch, op, pool)] for op in suite.OPS
    }


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
    pool = suite.make_pool(torch)
    for op in suite.OPS:
        for x in suite.make_inputs(torch, op, pool):
            if not x.is_floating_point():
                continue
            scaled = x.double() * 2**23
            assert torch.equal(scaled, scaled.round()), op.name
            if op.family in ("threads", "rng"):  # centred by the draws' mean; ones
                continue
            low, high = float(x.min()), float(x.max())
            # fp16/bf16 round to nearest, so 1 - 2**-23 may become 1.
            assert low >= -1 and (high < 1 if x.dtype == torch.float32 else high <= 1), op.name


def test_each_op_reads_the_pool_from_its_own_offset_and_never_writes_it() -> None:
    pool = suite.make_pool(torch)
    before = bits_digest(pool)
    firsts = {}
    for op in suite.OPS:
        inputs = suite.make_inputs(torch, op, pool)
        floats = [x for x in inputs if x.is_floating_point()]
        if floats:
            firsts[(op.inputs, op.offset)] = bits_digest(floats[0].flatten()[:64])
    # Ops sharing a builder and offset share inputs; every other op starts somewhere else.
    assert len(set(firsts.values())) == len(firsts)
    index = suite.make_inputs(torch, next(op for op in suite.OPS if op.name == "index_add"), pool)
    assert index[0].dtype == torch.int64 and 0 <= int(index[0].min()) <= int(index[0].max()) < 512
    run_probe(["cpu"])
    assert bits_digest(suite.make_pool(torch)) == before
    assert bits_digest(pool) == before


_MATMULS = ("matmul_fp32_square", "matmul_fp32_splitk", "matmul_fp32_batched")


def _plain_matmuls() -> dict[str, torch.Tensor]:
    """The probe's fp32 matmuls computed plainly, on the probe's own inputs, at one thread (as
    the probe runs them): what this CPU computes under the current setting, seen outside the
    probe."""
    pool = suite.make_pool(torch)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = {}
        for op in suite.OPS:
            if op.name in _MATMULS:
                a, b = suite.make_inputs(torch, op, pool)[:2]
                out[op.name] = torch.matmul(a, b)
        return out
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("setting", ["mkldnn_bf16", "float32_matmul_precision_medium"])
def test_the_cpu_fp32_matmul_precision_shows_exactly_when_the_cpu_honours_it(
    setting: str,
) -> None:
    """torch >= 2.9 lets oneDNN compute fp32 matmuls in bf16 on the CPU
    (https://docs.pytorch.org/docs/stable/notes/mkldnn.html); "medium" sets the same flag. What
    a CPU does with it varies: an AVX2 CPU computes fp32 bit for bit; an AMD EPYC with
    avx512_bf16 computes the split-K shape with other fp32 bits. The probe's digest changes for
    exactly the shapes whose plain product changes."""
    baseline, plain = cpu_probe(), _plain_matmuls()
    if setting == "mkldnn_bf16":
        torch.backends.mkldnn.matmul.fp32_precision = "bf16"
    else:
        torch.set_float32_matmul_precision("medium")
    assert torch.backends.mkldnn.matmul.fp32_precision == "bf16"
    lowered, plain_lowered = cpu_probe(), _plain_matmuls()
    for name in _MATMULS:
        changed = not torch.equal(plain[name], plain_lowered[name])
        assert (lowered[name]["digest"] != baseline[name]["digest"]) == changed, name
        if not changed:
            assert lowered[name] == baseline[name], name
