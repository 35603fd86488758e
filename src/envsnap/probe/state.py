"""Save and restore the torch global state that the probe could disturb.

The probe itself changes only the thread count (for `sum_threads_1`), the devices' global RNG
(for dropout) and the SDPA backend flags (through `sdpa_kernel`), and puts each back at once.
This snapshot is the second line: `restore` runs in a `finally` around the whole probe and puts
back anything that differs, so an op that raises half-way, or a future op that forgets, still
leaves the job as it was.

Only settings that differ are written back. Writing one that did not change is not free: on
torch >= 2.9 setting a legacy TF32 flag while the job used the new `fp32_precision` API (or the
reverse) switches which API the job is on, and later reads can raise. For the same reason every
read is guarded: a getter that raises (torch raises on reading a legacy flag after a mix of both
APIs) leaves that setting out of the snapshot rather than failing the probe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Snapshot = dict[str, Any]


@dataclass(frozen=True)
class Setting:
    """A piece of global state: how to read it and, if the probe may write it, how to set it."""

    name: str
    get: Callable[[Any], Any]
    set: Callable[[Any, Any], None] | None


def _attribute(path: str) -> Setting:
    """A `torch.backends...` attribute, read and written by dotted path from `torch`."""
    *parents, leaf = path.split(".")

    def owner(torch: Any) -> Any:
        obj = torch
        for part in parents:
            obj = getattr(obj, part)
        return obj

    def get(torch: Any) -> Any:
        return getattr(owner(torch), leaf)

    def put(torch: Any, value: Any) -> None:
        setattr(owner(torch), leaf, value)

    return Setting(path, get, put)


def _flag(getter: str, setter: str) -> Setting:
    """An SDPA flag of torch.backends.cuda, read by a function and set by another."""
    return Setting(
        f"backends.cuda.{getter}",
        lambda torch: getattr(torch.backends.cuda, getter)(),
        lambda torch, value: getattr(torch.backends.cuda, setter)(value),
    )


def _set_deterministic(torch: Any, value: Any) -> None:
    torch.use_deterministic_algorithms(value[0], warn_only=value[1])


def _num_interop_threads(torch: Any) -> Any:
    # Read only: set_num_interop_threads may be called once per process and the probe never
    # calls it; listed so a test can see it unchanged.
    return torch.get_num_interop_threads()


def _get_deterministic(torch: Any) -> Any:
    return (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )


SETTINGS: tuple[Setting, ...] = (
    Setting("num_threads", lambda t: t.get_num_threads(), lambda t, v: t.set_num_threads(v)),
    Setting("num_interop_threads", _num_interop_threads, None),
    Setting("default_dtype", lambda t: t.get_default_dtype(), lambda t, v: t.set_default_dtype(v)),
    Setting(
        "default_device", lambda t: t.get_default_device(), lambda t, v: t.set_default_device(v)
    ),
    Setting("grad_enabled", lambda t: t.is_grad_enabled(), lambda t, v: t.set_grad_enabled(v)),
    Setting("deterministic_algorithms", _get_deterministic, _set_deterministic),
    Setting(
        "float32_matmul_precision",
        lambda t: t.get_float32_matmul_precision(),
        lambda t, v: t.set_float32_matmul_precision(v),
    ),
    # The fp32_precision API of torch >= 2.9, then the legacy flags it overlaps.
    *(
        _attribute(path)
        for path in (
            "backends.fp32_precision",
            "backends.cuda.matmul.fp32_precision",
            "backends.cudnn.fp32_precision",
            "backends.cudnn.conv.fp32_precision",
            "backends.cudnn.rnn.fp32_precision",
            "backends.mkldnn.fp32_precision",
            "backends.mkldnn.matmul.fp32_precision",
            "backends.mkldnn.conv.fp32_precision",
            "backends.mkldnn.rnn.fp32_precision",
            "backends.cuda.matmul.allow_tf32",
            "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
            "backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
            "backends.cuda.matmul.allow_fp16_accumulation",
            "backends.cudnn.enabled",
            "backends.cudnn.benchmark",
            "backends.cudnn.benchmark_limit",
            "backends.cudnn.deterministic",
            "backends.cudnn.allow_tf32",
            "backends.mkldnn.enabled",
            "backends.mkldnn.deterministic",
        )
    ),
    _flag("flash_sdp_enabled", "enable_flash_sdp"),
    _flag("mem_efficient_sdp_enabled", "enable_mem_efficient_sdp"),
    _flag("math_sdp_enabled", "enable_math_sdp"),
    _flag("cudnn_sdp_enabled", "enable_cudnn_sdp"),
    _flag(
        "fp16_bf16_reduction_math_sdp_allowed",
        "allow_fp16_bf16_reduction_math_sdp",
    ),
    Setting("rng.cpu", lambda t: t.get_rng_state(), lambda t, v: t.set_rng_state(v)),
)


def _cuda_rng(index: int) -> Setting:
    def get(torch: Any) -> Any:
        return torch.cuda.get_rng_state(index)

    def put(torch: Any, value: Any) -> None:
        torch.cuda.set_rng_state(value, index)

    return Setting(f"rng.cuda.{index}", get, put)


def _cuda_settings(cuda_indices: Iterable[int]) -> list[Setting]:
    settings = [_cuda_rng(index) for index in cuda_indices]
    settings.append(
        Setting(
            "cuda.current_device",
            lambda t: t.cuda.current_device(),
            lambda t, v: t.cuda.set_device(v),
        )
    )
    return settings


def _settings(torch: Any, cuda_indices: Iterable[int]) -> list[Setting]:
    indices = list(cuda_indices)
    settings = list(SETTINGS)
    # Only CUDA devices the probe will use, or CUDA already started by the job: reading CUDA
    # state otherwise would start CUDA (a context, hundreds of MB) for nothing.
    if indices or _cuda_initialized(torch):
        settings.extend(_cuda_settings(indices))
    return settings


def _cuda_initialized(torch: Any) -> bool:
    try:
        return bool(torch.cuda.is_initialized())
    except Exception:
        return False


def snapshot(torch: Any, cuda_indices: Iterable[int] = ()) -> Snapshot:
    """Every readable setting, by name; CUDA RNG states for `cuda_indices`."""
    saved: Snapshot = {}
    for setting in _settings(torch, cuda_indices):
        try:
            saved[setting.name] = setting.get(torch)
        except Exception:  # noqa: S112 - missing in this torch, or unreadable: nothing to restore
            continue
    return saved


def _same(torch: Any, a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return bool(
            isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and torch.equal(a, b)
        )
    return bool(a == b)


def restore(torch: Any, saved: Snapshot) -> list[str]:
    """Write back every saved setting whose value changed; never raises.

    Returns the names of the settings that had changed and were written back, and of those
    that could not be (prefixed "failed:"), for tests and for the caller to report.
    """
    cuda = [int(name.rsplit(".", 1)[1]) for name in saved if name.startswith("rng.cuda.")]
    touched: list[str] = []
    for setting in _settings(torch, cuda):
        if setting.name not in saved or setting.set is None:
            continue
        try:
            if _same(torch, setting.get(torch), saved[setting.name]):
                continue
        except Exception:  # noqa: S110 - unreadable now: write the saved value back anyway
            pass
        try:
            setting.set(torch, saved[setting.name])
            touched.append(setting.name)
        except Exception:
            touched.append(f"failed:{setting.name}")
    return touched
