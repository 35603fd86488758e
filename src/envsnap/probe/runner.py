"""Run the probe suite on each device and build its plain-JSON record.

Never raises and never leaves the job's torch state changed (see `state`). torch is imported here,
inside `run_probe`, so importing `envsnap.probe` costs nothing in a process without torch.
"""

from __future__ import annotations

import functools
import platform
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from envsnap.probe import state, suite
from envsnap.probe.digest import bits_digest, max_rel_error

_REASON_CHARS = 120

# Messages by which torch says "no kernel for this here" rather than "this kernel failed".
_UNSUPPORTED_MARKERS = (
    "not implemented for",
    "no available kernel",
    "no viable backend",
    "not supported",
    "does not support",
)


def run_probe(devices: Sequence[str] | None = None) -> dict[str, object]:
    """Fingerprint how this torch stack computes, on `devices` (None: cpu and the current GPU).

    A few milliseconds of fixed computations on fixed inputs; the record holds a digest of each
    output's bits, its error against a float64 CPU reference, and whether a second run gave the
    same bits. The ops run under the job's settings (TF32, precision flags), with autograd and
    autocast off: the probe fingerprints the stack, not the region it is called in. They run at
    one CPU thread, except the one that measures the job's thread count (see `suite.Context`).
    Runs on a GPU start CUDA if the job has not.

    While it runs it sets the process-wide thread count to 1 and records warnings (process-wide
    too): call it where no other thread is running torch work.
    """
    started = time.perf_counter()
    try:
        import torch
    except Exception as exc:
        reason = f"torch is not importable: {_describe(exc)}"
        names = [devices] if isinstance(devices, str) else list(devices or ["cpu"])
        return _record(None, started, {name: _unavailable(reason) for name in names})
    records: dict[str, dict[str, object]] = {}
    plan = _plan(torch, devices, records)
    cuda_indices = [torch.device(name).index for name in plan if name.startswith("cuda")]
    with warnings.catch_warnings():  # a getter's deprecation warning must not reach the job
        warnings.simplefilter("ignore")
        saved = state.snapshot(torch, cuda_indices)
    try:
        with ExitStack() as stack:
            # Recorded, not shown: torch warns when an SDPA backend cannot run, and a job that
            # turns warnings into errors must not see the probe fail for it.
            caught = stack.enter_context(warnings.catch_warnings(record=True))
            warnings.simplefilter("always")
            stack.enter_context(torch.no_grad())
            for device_type in dict.fromkeys(torch.device(name).type for name in plan):
                try:
                    stack.enter_context(torch.autocast(device_type=device_type, enabled=False))
                except Exception:  # noqa: S112 - no autocast for this device type: nothing to disable
                    continue
            cache = _Cache(torch)
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # see suite.Context; the job's count comes back in restore
            for name in plan:
                records[name] = _run_device(torch, name, threads, cache, caught)
    except Exception as exc:  # outside any one device: record it on those not yet run
        for name in plan:
            records[name] = records[name] or _failed(_describe(exc))
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state.restore(torch, saved)
    return _record(str(torch.__version__), started, records)


def _record(version: str | None, started: float, devices: dict[str, Any]) -> dict[str, object]:
    return {
        "suite": suite.PROBE_SUITE,
        "torch": version,
        "elapsed_ms": _ms(started),
        "devices": devices,
    }


def _plan(torch: Any, devices: Sequence[str] | None, records: dict[str, Any]) -> list[str]:
    """Device names to run, normalised ("cuda" -> "cuda:N"); those that cannot run are recorded
    in `records` (in order) right away."""
    if isinstance(devices, str):  # a str is a Sequence[str] too: "cpu" means ["cpu"]
        devices = [devices]
    if devices is None:
        names = ["cpu"]
        try:
            if torch.cuda.is_available():  # True on ROCm builds too (torch.version.hip)
                names.append(f"cuda:{torch.cuda.current_device()}")
        except Exception as exc:
            records["cuda"] = _failed(_describe(exc))
        devices = names
    plan: list[str] = []
    for requested in devices:
        try:
            name, problem = _check(torch, requested)
        except Exception as exc:
            records.setdefault(str(requested), _failed(_describe(exc)))
            continue
        if name in records or name in plan:
            continue
        if problem is None:
            plan.append(name)
            records[name] = {}  # placeholder: keeps the requested order
        else:
            records[name] = _unavailable(problem)
    return plan


def _check(torch: Any, requested: str) -> tuple[str, str | None]:
    """The normalised name, and why that device cannot run (None: it can)."""
    device = torch.device(requested)
    if device.type == "cpu":
        return "cpu", None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            return str(device), "CUDA is not available"
        index = torch.cuda.current_device() if device.index is None else device.index
        count = torch.cuda.device_count()
        if index >= count:
            return f"cuda:{index}", f"no CUDA device {index} (device_count {count})"
        return f"cuda:{index}", None
    module = getattr(torch, device.type, None)
    available = getattr(module, "is_available", None)
    if callable(available) and not available():
        return str(device), f"{device.type} is not available"
    return str(device), None


def _run_device(
    torch: Any, name: str, threads: int, cache: _Cache, caught: list[Any]
) -> dict[str, object]:
    started = time.perf_counter()
    ctx = suite.Context(
        torch=torch, device=name, device_type=torch.device(name).type, threads=threads
    )
    try:
        label, capability = _describe_device(torch, ctx)
        ops = {op.name: _run_op(op, ctx, cache, caught) for op in suite.OPS}
        _synchronize(torch, ctx)
    except Exception as exc:
        return _failed(_describe(exc), _ms(started))
    return {
        "status": "ok",
        "reason": None,
        "name": label,
        "capability": capability,
        "threads": threads,
        "elapsed_ms": _ms(started),
        "ops": ops,
    }


def _run_op(
    op: suite.Op, ctx: suite.Context, cache: _Cache, caught: list[Any]
) -> dict[str, object]:
    record: dict[str, object] = {
        "family": op.family,
        "status": "ok",
        "digest": None,
        "max_rel_error": None,
        "repeat_equal": None,
        "reason": None,
    }
    seen = len(caught)
    try:
        why = op.unsupported(ctx) if op.unsupported is not None else None
        if why is not None:
            record.update(status="unsupported", reason=why)
            return record
        inputs = tuple(tensor.to(ctx.device) for tensor in cache.inputs(op))
        with _job_threads(ctx, op.job_threads):
            output = op.run(ctx, inputs)
            digest = bits_digest(output)
            again = bits_digest(op.run(ctx, inputs))  # same inputs: other bits = nondeterminism
        error = None if op.ref is None else max_rel_error(output, cache.reference(op))
        record.update(digest=digest, max_rel_error=error, repeat_equal=digest == again)
    except Exception as exc:
        unsupported = isinstance(exc, NotImplementedError) or any(
            marker in str(exc).lower() for marker in _UNSUPPORTED_MARKERS
        )
        reason = _describe(exc)
        if unsupported:  # torch explains a refused backend in warnings, not in the exception
            notes = [_clip(str(w.message)) for w in caught[seen:]][:2]
            reason = " | ".join([reason, *notes])
        record.update(status="unsupported" if unsupported else "error", reason=reason)
    return record


class _Cache:
    """Inputs and references for one `run_probe` call, shared by every device.

    Ops with the same builder and offset share inputs (the SDPA, atomics and thread ops).
    Nothing outlives the call: a few MB, freed when the probe returns.
    """

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self._pool: Any = None
        self._inputs: dict[tuple[Any, int], suite.Inputs] = {}
        self._references: dict[tuple[Any, int, Any], Any] = {}

    def inputs(self, op: suite.Op) -> suite.Inputs:
        key = (op.inputs, op.offset)
        if key not in self._inputs:
            if self._pool is None:
                self._pool = suite.make_pool(self.torch)
            self._inputs[key] = suite.make_inputs(self.torch, op, self._pool)
        return self._inputs[key]

    def reference(self, op: suite.Op) -> Any:
        """`op.ref` on the inputs in float64 (at one thread, as every op but the job-thread
        ones: its bits do not follow the job's thread count)."""
        key = (op.inputs, op.offset, op.ref)  # the four SDPA ops share one
        if key not in self._references:
            assert op.ref is not None  # noqa: S101 - only called for ops with a reference
            wide = tuple(x.double() if x.is_floating_point() else x for x in self.inputs(op))
            self._references[key] = op.ref(self.torch, wide)
        return self._references[key]


@contextmanager
def _job_threads(ctx: suite.Context, wanted: bool) -> Iterator[None]:
    """The job's thread count for an op that asks for it; every other op keeps one thread."""
    torch = ctx.torch
    if not wanted or ctx.threads == 1:
        yield
        return
    torch.set_num_threads(ctx.threads)
    try:
        yield
    finally:
        torch.set_num_threads(1)


def _describe_device(torch: Any, ctx: suite.Context) -> tuple[str, str | None]:
    """A human name and the compute capability that selects kernels (ISA level, sm_XY)."""
    if ctx.device_type == "cpu":
        capability = None
        get = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
        if callable(get):
            capability = str(get())
        return _cpu_name(), capability
    if ctx.device_type == "cuda":
        index = torch.device(ctx.device).index
        if getattr(torch.version, "hip", None):
            arch = getattr(torch.cuda.get_device_properties(index), "gcnArchName", None)
            capability = None if arch is None else str(arch)
        else:
            major, minor = torch.cuda.get_device_capability(index)
            capability = f"sm_{major}{minor}"
        return str(torch.cuda.get_device_name(index)), capability
    return ctx.device, None


@functools.lru_cache(maxsize=1)
def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as lines:
            for line in lines:  # the first processor's entry is enough: stop there
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _synchronize(torch: Any, ctx: suite.Context) -> None:
    module = getattr(torch, ctx.device_type, None)
    sync = getattr(module, "synchronize", None)
    if ctx.device_type != "cpu" and callable(sync):
        sync(ctx.device)


def _unavailable(reason: str) -> dict[str, object]:
    return _device_stub("unavailable", reason, None)


def _failed(reason: str, elapsed: float | None = None) -> dict[str, object]:
    return _device_stub("error", reason, elapsed)


def _device_stub(status: str, reason: str, elapsed: float | None) -> dict[str, object]:
    return {
        "status": status,
        "reason": reason,
        "name": None,
        "capability": None,
        "threads": None,
        "elapsed_ms": elapsed,
        "ops": {},
    }


def _clip(text: str) -> str:
    return " ".join(text.split())[:_REASON_CHARS]


def _describe(exc: BaseException) -> str:
    """Exception class and at most 120 chars of its message, on one line."""
    message = _clip(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
