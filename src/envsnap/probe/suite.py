"""The fixed list of probe operations, their inputs and their float64 references.

Every input is a slice of one pool of draws made once per probe call: `torch.randint` on the CPU
with a private generator and a fixed seed, integers in [-2**23, 2**23) drawn straight into
float32 and scaled by 2**-23 into [-1, 1). Integer draws, their conversion and a power-of-two
scale are exact, and no CPU-specific vectorised code (as in `randn`'s Box-Muller) touches them:
the bits are the same on every machine, and any difference in an output comes from the
operation under test. Casts to bf16/fp16 round correctly, so they are the same everywhere too.
One pool rather than one draw per input: drawing costs more than the ops it feeds (a third of
a first call went to it), and slices of the pool are views, so most inputs cost nothing. Each op
reads the pool from its own offset, so ops do not all see the same leading values.

Change any op, shape, offset or dtype here and bump `PROBE_SUITE`: manifests with different
suite strings are not comparable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROBE_SUITE = "envsnap-probe/2"

POOL_SEED = 20240601
#: torch's CPU reductions split a full reduction among threads in chunks of at least this many
#: elements (at::internal::GRAIN_SIZE), so the thread ops need several chunks' worth of input.
_GRAIN = 32768
_THREADS_N = 8 * _GRAIN  # 2**18: 1..8 threads split it 8 ways; 9 or more split it like 8
POOL_SIZE = _THREADS_N  # the largest single input

Tensor = Any  # torch is imported lazily and untyped for mypy
Inputs = tuple[Tensor, ...]


@dataclass(frozen=True)
class Context:
    """What an op needs to know about where it runs.

    Every op runs at one CPU thread except those marked `job_threads`, which run at the job's
    count (`threads`): the thread count then shows in the threads family alone, and the probe
    pays no thread wake-ups for the rest.
    """

    torch: Any
    device: str  # "cpu", "cuda:0", ...
    device_type: str  # "cpu", "cuda", ...
    threads: int = 1  # the job's CPU thread count


@dataclass(frozen=True)
class Op:
    """One probe operation.

    `inputs` builds CPU tensors from the pool's draws, read from `offset` on; the runner moves
    them to the device. `run` must not modify its inputs (it runs twice on the same ones, and
    most are views of the pool). `ref` computes the float64 CPU reference from the same inputs
    cast to float64; None for RNG ops, whose output is not an approximation of anything.
    `unsupported` returns a reason when the op cannot run on this device, before trying.
    `job_threads` runs it at the job's CPU thread count instead of one thread.
    """

    name: str
    family: str
    offset: int
    inputs: Callable[[Any, Draws], Inputs]
    run: Callable[[Context, Inputs], Tensor]
    ref: Callable[[Any, Inputs], Tensor] | None
    unsupported: Callable[[Context], str | None] | None = None
    job_threads: bool = False


def make_pool(torch: Any) -> Tensor:
    """The draws every input is sliced from: exact values in [-1, 1) (see the module docstring)."""
    generator = torch.Generator(device="cpu")
    generator.manual_seed(POOL_SEED)
    draws = torch.randint(
        -(2**23), 2**23, (POOL_SIZE,), generator=generator, dtype=torch.float32, device="cpu"
    )
    return draws.mul_(2**-23)


class Draws:
    """Consecutive values of the pool from an op's offset on, wrapping round at its end."""

    def __init__(self, pool: Tensor, offset: int) -> None:
        self._pool = pool
        self._at = offset % POOL_SIZE

    def take(self, *shape: int, dtype: Any = None) -> Tensor:
        """A tensor of `shape` (a view of the pool for float32; never to be written)."""
        count = math.prod(shape)
        if self._at + count > POOL_SIZE:
            self._at = 0
        values = self._pool[self._at : self._at + count].view(shape)
        self._at += count
        return values if dtype is None else values.to(dtype)


def make_inputs(torch: Any, op: Op, pool: Tensor) -> Inputs:
    """The CPU inputs of `op`: the same bits whatever the job set."""
    return op.inputs(torch, Draws(pool, op.offset))


# Inputs ------------------------------------------------------------------------------------------


def _pair(m: int, k: int, n: int, dtype: str = "float32") -> Callable[[Any, Draws], Inputs]:
    def build(torch: Any, d: Draws) -> Inputs:
        kind = getattr(torch, dtype)
        return d.take(m, k, dtype=kind), d.take(k, n, dtype=kind)

    return build


def _batched(torch: Any, d: Draws) -> Inputs:
    return d.take(8, 64, 64), d.take(8, 64, 64)


def _conv(torch: Any, d: Draws) -> Inputs:
    return d.take(1, 16, 16, 16), d.take(32, 16, 3, 3), d.take(32)


def _matrix(rows: int, cols: int) -> Callable[[Any, Draws], Inputs]:
    return lambda torch, d: (d.take(rows, cols),)


_reduction_inputs = _matrix(128, 1024)  # one builder: the two reduction ops share their input


def _layer_norm_inputs(torch: Any, d: Draws) -> Inputs:
    return d.take(64, 512), d.take(512), d.take(512)


def _qkv(torch: Any, d: Draws) -> Inputs:
    # fp16: the one dtype every SDPA backend takes on every CUDA GPU (flash and cuDNN refuse
    # fp32, older GPUs lack bf16), and the CPU runs it too.
    return tuple(d.take(1, 4, 64, 64, dtype=torch.float16) for _ in range(3))


def _scatter_inputs(torch: Any, d: Draws) -> Inputs:
    # Many more sources than slots: on a GPU each slot takes ~64 atomic adds in arrival order.
    # The slots come from the draws' integers (exact: value * 2**23), taken modulo 512.
    index = d.take(32768).mul(2**23).to(torch.int64).remainder_(512)
    return index, d.take(32768)


def _no_inputs(torch: Any, d: Draws) -> Inputs:
    return ()


def _ones(torch: Any, d: Draws) -> Inputs:
    return (torch.ones(4096, dtype=torch.float32, device="cpu"),)


def _centered(torch: Any, d: Draws) -> Inputs:
    # Centred so the exact sum is ~0 and the float32 result is mostly rounding error, which
    # depends on how the elements are grouped: an uncentred sum of 2**18 values often rounds to
    # the same float for two groupings. Centred on the integers (value * 2**23, exact): their
    # float64 sum is exact in any order (< 2**42), so the shift, and every value, is the same
    # everywhere.
    integers = d.take(_THREADS_N).mul(2**23)  # a copy: the pool is not written
    shift = round(float(integers.sum(dtype=torch.float64)) / _THREADS_N)
    return (integers.sub_(shift).mul_(2**-23),)


# Runs --------------------------------------------------------------------------------------------


def _matmul(ctx: Context, x: Inputs) -> Tensor:
    return x[0] @ x[1]


def _ref_matmul(torch: Any, x: Inputs) -> Tensor:
    return x[0] @ x[1]


def _bmm(ctx: Context, x: Inputs) -> Tensor:
    return ctx.torch.bmm(x[0], x[1])


def _ref_bmm(torch: Any, x: Inputs) -> Tensor:
    return torch.bmm(x[0], x[1])


def _conv2d(ctx: Context, x: Inputs) -> Tensor:
    return ctx.torch.nn.functional.conv2d(x[0], x[1], x[2], padding=1)


def _ref_conv2d(torch: Any, x: Inputs) -> Tensor:
    return torch.nn.functional.conv2d(x[0], x[1], x[2], padding=1)


def _sum_dim0(ctx: Context, x: Inputs) -> Tensor:
    return x[0].sum(dim=0)


def _ref_sum_dim0(torch: Any, x: Inputs) -> Tensor:
    return x[0].sum(dim=0)


def _mean_dim1(ctx: Context, x: Inputs) -> Tensor:
    return x[0].mean(dim=1)


def _ref_mean_dim1(torch: Any, x: Inputs) -> Tensor:
    return x[0].mean(dim=1)


def _softmax(ctx: Context, x: Inputs) -> Tensor:
    return ctx.torch.softmax(x[0], dim=-1)


def _ref_softmax(torch: Any, x: Inputs) -> Tensor:
    return torch.softmax(x[0], dim=-1)


def _layer_norm(ctx: Context, x: Inputs) -> Tensor:
    return ctx.torch.nn.functional.layer_norm(x[0], (x[0].shape[-1],), x[1], x[2], 1e-5)


def _ref_layer_norm(torch: Any, x: Inputs) -> Tensor:
    return torch.nn.functional.layer_norm(x[0], (x[0].shape[-1],), x[1], x[2], 1e-5)


def _sdpa(backend: str) -> Callable[[Context, Inputs], Tensor]:
    def run(ctx: Context, x: Inputs) -> Tensor:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        # sdpa_kernel allows only this backend and restores the job's choice on exit.
        with sdpa_kernel(getattr(SDPBackend, backend)):
            return ctx.torch.nn.functional.scaled_dot_product_attention(x[0], x[1], x[2])

    return run


def _ref_sdpa(torch: Any, x: Inputs) -> Tensor:
    q, k, v = x
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def _sdpa_available(backend: str) -> Callable[[Context], str | None]:
    def check(ctx: Context) -> str | None:
        try:
            from torch.nn.attention import SDPBackend
        except ImportError:
            return "torch.nn.attention is missing (torch < 2.2)"
        if not hasattr(SDPBackend, backend):
            return f"this torch has no SDPBackend.{backend}"
        return None

    return check


def _index_add(ctx: Context, x: Inputs) -> Tensor:
    target = ctx.torch.zeros(512, dtype=x[1].dtype, device=x[1].device)
    return target.index_add_(0, x[0], x[1])


def _ref_index_add(torch: Any, x: Inputs) -> Tensor:
    return torch.zeros(512, dtype=torch.float64).index_add_(0, x[0], x[1])


def _scatter_add(ctx: Context, x: Inputs) -> Tensor:
    target = ctx.torch.zeros(512, dtype=x[1].dtype, device=x[1].device)
    return target.scatter_add_(0, x[0], x[1])


def _ref_scatter_add(torch: Any, x: Inputs) -> Tensor:
    return torch.zeros(512, dtype=torch.float64).scatter_add_(0, x[0], x[1])


_RNG_SEED = 20240601


def _device_generator(ctx: Context) -> Any:
    generator = ctx.torch.Generator(device=ctx.device)
    generator.manual_seed(_RNG_SEED)
    return generator


def _randn(ctx: Context, x: Inputs) -> Tensor:
    torch = ctx.torch
    return torch.randn(
        4096, generator=_device_generator(ctx), dtype=torch.float32, device=ctx.device
    )


def _rand(ctx: Context, x: Inputs) -> Tensor:
    torch = ctx.torch
    return torch.rand(
        4096, generator=_device_generator(ctx), dtype=torch.float32, device=ctx.device
    )


def _default_generator(ctx: Context) -> Any:
    torch = ctx.torch
    if ctx.device_type == "cpu":
        return torch.default_generator
    index = torch.device(ctx.device).index
    torch.cuda.init()  # default_generators is filled on CUDA's lazy init
    return torch.cuda.default_generators[torch.cuda.current_device() if index is None else index]


def _dropout(ctx: Context, x: Inputs) -> Tensor:
    # dropout takes no generator: seed the device's global one and put its state back, so the
    # job's next random number is the one it would have drawn anyway.
    generator = _default_generator(ctx)
    saved = generator.get_state()
    try:
        generator.manual_seed(_RNG_SEED)
        return ctx.torch.nn.functional.dropout(x[0], p=0.5, training=True)
    finally:
        generator.set_state(saved)


def _dropout_supported(ctx: Context) -> str | None:
    if ctx.device_type in ("cpu", "cuda"):
        return None
    return f"no global generator handled for device type {ctx.device_type}"


def _two_sums(ctx: Context, x: Inputs) -> Tensor:
    # Two sums, the second shifted by one element: a grouping that happens to round like another
    # for one sum rarely does for both (measured: 1 vs 2 threads differed for all 30 seeds tried).
    return ctx.torch.stack([x[0].sum(), x[0][1:].sum()])


def _ref_two_sums(torch: Any, x: Inputs) -> Tensor:
    return torch.stack([x[0].sum(), x[0][1:].sum()])


def _cpu_only(ctx: Context) -> str | None:
    return None if ctx.device_type == "cpu" else "the CPU thread count applies to the cpu only"


def _bf16_supported(ctx: Context) -> str | None:
    if ctx.device_type != "cuda":
        return None
    cuda = ctx.torch.cuda
    index = ctx.torch.device(ctx.device).index
    try:
        with cuda.device(index):
            supported = cuda.is_bf16_supported(including_emulation=False)
    except TypeError:  # torch < 2.3 has no including_emulation
        with cuda.device(index):
            supported = cuda.is_bf16_supported()
    return None if supported else "this GPU has no native bf16"


def _at(slot: int) -> int:
    """An op's offset into the pool: slots 16384 draws apart."""
    return slot * 16384


OPS: tuple[Op, ...] = (
    Op("matmul_fp32_square", "matmul_fp32", _at(1), _pair(128, 128, 128), _matmul, _ref_matmul),
    # Long K and small M, N: few output tiles, so cuBLAS splits K across blocks and adds the
    # partial sums (split-K); its choice, and TF32, show up here first.
    Op("matmul_fp32_splitk", "matmul_fp32", _at(2), _pair(64, 2048, 64), _matmul, _ref_matmul),
    Op("matmul_fp32_batched", "matmul_fp32", _at(3), _batched, _bmm, _ref_bmm),
    Op(
        "matmul_bf16",
        "matmul_bf16",
        _at(4),
        _pair(32, 256, 32, "bfloat16"),
        _matmul,
        _ref_matmul,
        _bf16_supported,
    ),
    Op("matmul_fp16", "matmul_fp16", _at(5), _pair(32, 256, 32, "float16"), _matmul, _ref_matmul),
    Op("conv2d_fp32", "conv2d_fp32", _at(6), _conv, _conv2d, _ref_conv2d),
    # Column sums and row means: the kernels' vector width and accumulation order, not threads
    # (torch splits these among threads by output, so every output keeps its order).
    Op("reduction_sum", "reduction", _at(7), _reduction_inputs, _sum_dim0, _ref_sum_dim0),
    Op("reduction_mean", "reduction", _at(7), _reduction_inputs, _mean_dim1, _ref_mean_dim1),
    Op("softmax", "softmax", _at(9), _matrix(64, 512), _softmax, _ref_softmax),
    Op("layer_norm", "layer_norm", _at(10), _layer_norm_inputs, _layer_norm, _ref_layer_norm),
    *(
        Op(
            f"sdpa_{short}",
            f"sdpa_{short}",
            _at(11),
            _qkv,
            _sdpa(backend),
            _ref_sdpa,
            _sdpa_available(backend),
        )
        for short, backend in (
            ("math", "MATH"),
            ("flash", "FLASH_ATTENTION"),
            ("efficient", "EFFICIENT_ATTENTION"),
            ("cudnn", "CUDNN_ATTENTION"),
        )
    ),
    # On a GPU these add with atomics in arrival order: repeat_equal false is the evidence.
    Op("index_add", "atomics", _at(12), _scatter_inputs, _index_add, _ref_index_add),
    Op("scatter_add", "atomics", _at(12), _scatter_inputs, _scatter_add, _ref_scatter_add),
    Op("rng_randn", "rng", _at(0), _no_inputs, _randn, None),
    Op("rng_rand", "rng", _at(0), _no_inputs, _rand, None),
    Op("rng_dropout", "rng", _at(0), _ones, _dropout, None, _dropout_supported),
    # The same full sum at one thread and at the job's count: the first isolates the kernel,
    # the second adds how the job's thread count groups the partial sums.
    Op("sum_threads_1", "threads", _at(14), _centered, _two_sums, _ref_two_sums, _cpu_only),
    Op(
        "sum_threads_n",
        "threads",
        _at(14),
        _centered,
        _two_sums,
        _ref_two_sums,
        _cpu_only,
        job_threads=True,
    ),
)
