"""The startup hook `envsnap run` puts in front of a job: applies recorded runtime conditions.

`envsnap run` copies this file, as `_envsnap_startup.py`, with a two-line `sitecustomize.py` into a
fresh directory placed first on PYTHONPATH. Every Python process of the job then calls
`install()` at interpreter start, before the job's own code runs. It reads the JSON file named
by ENVSNAP_HOOK_CONFIG and:

- seeds `random` at once (when the recorded run declared seeds);
- registers an import watcher: when the job imports torch (or numpy), the recorded torch
  runtime flags and seeds are applied right after that import finishes.

It uses the standard library only (the job may run another interpreter than envsnap's) and
imports nothing heavy: a job that never imports torch never pays for it. Each applied or failed
setting is appended as one JSON line to ENVSNAP_HOOK_LOG when that variable is set.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

CONFIG_ENV = "ENVSNAP_HOOK_CONFIG"
LOG_ENV = "ENVSNAP_HOOK_LOG"

Getter = Callable[[Any], Any]
Setter = Callable[[Any, Any], None]


def _dtype_name(torch: Any) -> str:
    return str(torch.get_default_dtype())


# The dtypes torch.set_default_dtype takes: the only names ever looked up on torch.
DTYPE_NAMES = frozenset({"float16", "bfloat16", "float32", "float64"})
MAX_THREADS = 65536


def _set_dtype(torch: Any, value: Any) -> None:
    name = value.removeprefix("torch.") if isinstance(value, str) else None
    if name not in DTYPE_NAMES:
        raise ValueError(f"not a default dtype: {value!r}")
    torch.set_default_dtype(getattr(torch, name))


def _attr(path: str) -> tuple[Getter, Setter]:
    """Getter and setter of a plain attribute below `torch.backends` (e.g. 'cudnn.benchmark')."""
    *owner_path, name = path.split(".")

    def owner(torch: Any) -> Any:
        target = torch.backends
        for part in owner_path:
            target = getattr(target, part)
        return target

    return (lambda torch: getattr(owner(torch), name)), (
        lambda torch, value: setattr(owner(torch), name, value)
    )


def _sdp(kind: str) -> tuple[Getter, Setter]:
    return (
        lambda torch: getattr(torch.backends.cuda, f"{kind}_sdp_enabled")(),
        lambda torch, value: getattr(torch.backends.cuda, f"enable_{kind}_sdp")(bool(value)),
    )


def _fill_memory() -> tuple[Getter, Setter]:
    return (
        lambda torch: torch.utils.deterministic.fill_uninitialized_memory,
        lambda torch, value: setattr(torch.utils.deterministic, "fill_uninitialized_memory", value),
    )


def _fp32_precision(key: str) -> tuple[Getter, Setter]:
    """An fp32_precision level of torch >= 2.9, keyed as the manifest keys it ('generic' is
    `torch.backends.fp32_precision` itself, 'mkldnn.matmul' `torch.backends.mkldnn.matmul`)."""
    return _attr("fp32_precision" if key == "generic" else f"{key}.fp32_precision")


# The fp32_precision levels the torch collector records, parents before their leaves: setting
# a level rewrites the levels below it (and 'generic'), so the recorded leaves are set last.
FP32_PRECISION_KEYS = (
    "generic",
    "cudnn",
    "mkldnn",
    "cuda.matmul",
    "cudnn.conv",
    "cudnn.rnn",
    "mkldnn.matmul",
    "mkldnn.conv",
    "mkldnn.rnn",
)
FP32_PRECISION_FLAG = "fp32_precision."
FP32_PRECISION_VALUES = ("ieee", "tf32", "bf16", "none")

# Torch-section field (dotted, as in the manifest) -> how to read and set it live. Applied in
# this order: float32_matmul_precision before the fp32_precision levels it also sets.
TORCH_FLAGS: dict[str, tuple[Getter, Setter]] = {
    "num_threads": (lambda t: t.get_num_threads(), lambda t, v: t.set_num_threads(int(v))),
    "num_interop_threads": (
        lambda t: t.get_num_interop_threads(),
        lambda t, v: t.set_num_interop_threads(int(v)),
    ),
    "default_dtype": (_dtype_name, _set_dtype),
    "deterministic.fill_uninitialized_memory": _fill_memory(),
    "cudnn.enabled": _attr("cudnn.enabled"),
    "cudnn.benchmark": _attr("cudnn.benchmark"),
    "cudnn.deterministic": _attr("cudnn.deterministic"),
    "cudnn.allow_tf32": _attr("cudnn.allow_tf32"),
    "matmul.allow_tf32": _attr("cuda.matmul.allow_tf32"),
    "matmul.allow_fp16_reduced_precision_reduction": _attr(
        "cuda.matmul.allow_fp16_reduced_precision_reduction"
    ),
    "matmul.allow_bf16_reduced_precision_reduction": _attr(
        "cuda.matmul.allow_bf16_reduced_precision_reduction"
    ),
    "matmul.allow_fp16_accumulation": _attr("cuda.matmul.allow_fp16_accumulation"),
    "matmul.float32_matmul_precision": (
        lambda t: t.get_float32_matmul_precision(),
        lambda t, v: t.set_float32_matmul_precision(str(v)),
    ),
    "sdpa.flash": _sdp("flash"),
    "sdpa.mem_efficient": _sdp("mem_efficient"),
    "sdpa.math": _sdp("math"),
    "sdpa.cudnn": _sdp("cudnn"),
    **{FP32_PRECISION_FLAG + key: _fp32_precision(key) for key in FP32_PRECISION_KEYS},
}
# Set together through torch.use_deterministic_algorithms(mode, warn_only=...).
DETERMINISM_FLAGS = ("deterministic.algorithms", "deterministic.warn_only")


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_thread_count(value: Any) -> bool:
    return type(value) is int and 1 <= value <= MAX_THREADS


def _is_dtype(value: Any) -> bool:
    return isinstance(value, str) and value.removeprefix("torch.") in DTYPE_NAMES


def _is_precision(value: Any) -> bool:
    return value in ("highest", "high", "medium")


def _is_fp32_precision(value: Any) -> bool:
    return value in FP32_PRECISION_VALUES


# What each flag's value must be; anything else is refused before any setter sees it.
FLAG_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    name: (_is_bool, "true or false") for name in (*TORCH_FLAGS, *DETERMINISM_FLAGS)
}
FLAG_VALUES.update(
    {
        "num_threads": (_is_thread_count, f"an integer 1..{MAX_THREADS}"),
        "num_interop_threads": (_is_thread_count, f"an integer 1..{MAX_THREADS}"),
        "default_dtype": (_is_dtype, "one of torch." + ", torch.".join(sorted(DTYPE_NAMES))),
        "matmul.float32_matmul_precision": (_is_precision, "highest, high or medium"),
        **{
            FP32_PRECISION_FLAG + key: (_is_fp32_precision, "ieee, tf32, bf16 or none")
            for key in FP32_PRECISION_KEYS
        },
    }
)


def flag_problem(name: str, value: Any) -> str | None:
    """Why `value` cannot be set for the torch flag `name`, or None when it can."""
    check = FLAG_VALUES.get(name)
    if check is None:
        return "not a torch flag envsnap sets"
    valid, accepts = check
    return None if valid(value) else f"{value!r} is not {accepts}"


def _log(event: dict[str, Any]) -> None:
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = json.dumps({"pid": os.getpid(), **event}, sort_keys=True) + "\n"
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        pass  # the job must run even when the log cannot be written


def _set_one(torch: Any, name: str, value: Any) -> str:
    getter, setter = TORCH_FLAGS[name]
    problem = flag_problem(name, value)
    if problem is not None:
        return f"failed: refused: {problem}"
    try:
        if getter(torch) == value:
            return "already set"
        setter(torch, value)
    except Exception as exc:  # one refused flag must not stop the others or the job
        return _failed(exc)
    return "applied"


def _failed(exc: Exception) -> str:
    return f"failed: {type(exc).__name__}: {exc}"


def _set_determinism(torch: Any, flags: dict[str, Any]) -> str:
    for name in DETERMINISM_FLAGS:
        problem = flag_problem(name, flags[name]) if name in flags else None
        if problem is not None:
            return f"failed: refused: {problem}"
    try:
        live = (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        )
        mode = bool(flags.get("deterministic.algorithms", live[0]))
        warn = bool(flags.get("deterministic.warn_only", live[1]))
        if (mode, warn) == live:
            return "already set"  # setting it costs seconds in recent torch: only when it changes
        torch.use_deterministic_algorithms(mode, warn_only=warn)
    except Exception as exc:
        return _failed(exc)
    return "applied"


def _seed_torch(torch: Any, seed: dict[str, Any]) -> str:
    try:
        torch.manual_seed(int(seed["torch"]))
        if getattr(torch.version, "cuda", None) is not None and "cuda" in seed:
            # Queued by torch until CUDA initialises: seeding never starts CUDA.
            torch.cuda.manual_seed_all(int(seed["cuda"]))
    except Exception as exc:
        return _failed(exc)
    return "applied"


def apply_torch(torch: Any, flags: dict[str, Any], seed: dict[str, Any] | None) -> dict[str, str]:
    """Apply recorded flags (and the torch seeds) to an imported torch; name -> outcome."""
    outcome: dict[str, str] = {}
    for name in TORCH_FLAGS:  # in TORCH_FLAGS' order, whatever the config's
        if name in flags:
            outcome[name] = _set_one(torch, name, flags[name])
    if any(name in flags for name in DETERMINISM_FLAGS):
        status = _set_determinism(torch, flags)
        outcome.update({name: status for name in DETERMINISM_FLAGS if name in flags})
    if seed is not None and "torch" in seed:
        outcome["seed"] = _seed_torch(torch, seed)
    return outcome


class _ImportWatcher:
    """A meta-path finder that runs a callback right after a watched top-level module executes.

    A spec lookup alone (`importlib.util.find_spec("torch")`, as availability probes do) runs
    nothing: the callback fires only once the module's code has run and the module is the one in
    `sys.modules`, and the watcher keeps watching until then.
    """

    def __init__(self, callbacks: dict[str, Callable[[Any], None]]) -> None:
        self.callbacks = callbacks

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.callbacks:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None and spec.loader is not None:
                self._wrap(fullname, spec.loader)
                return spec
        return None

    def _wrap(self, fullname: str, loader: Any) -> None:
        # The loader object belongs to this one module's spec; patch it for one call and
        # restore it, rather than substitute a loader type that torch's own code may inspect.
        original = loader.exec_module
        if getattr(original, "_envsnap_wrapped", False):
            return

        def exec_module(module: Any) -> None:
            try:
                original(module)
            finally:
                loader.exec_module = original
            if sys.modules.get(fullname) is module:
                self.fire(fullname, module)

        exec_module._envsnap_wrapped = True  # type: ignore[attr-defined]
        loader.exec_module = exec_module

    def fire(self, fullname: str, module: Any) -> None:
        callback = self.callbacks.pop(fullname, None)
        if not self.callbacks and self in sys.meta_path:
            sys.meta_path.remove(self)
        if callback is None:
            return
        try:
            callback(module)
        except Exception as exc:  # the job's import must succeed whatever the hook does
            _log({"event": fullname, "error": _failed(exc)})


def _seed_numpy(seed: dict[str, Any]) -> Callable[[Any], None]:
    def apply(numpy: Any) -> None:
        try:
            numpy.random.seed(seed["numpy"])
            _log({"event": "numpy", "seed": "applied"})
        except Exception as exc:
            _log({"event": "numpy", "seed": _failed(exc)})

    return apply


def install() -> None:
    """Read the config named by ENVSNAP_HOOK_CONFIG and arm the hooks; never raises."""
    path = os.environ.get(CONFIG_ENV)
    if not path:
        return
    try:
        _arm(path)
    except Exception as exc:  # the job, and the sitecustomize chained after us, must run
        _log({"event": "start", "error": _failed(exc)})


def _read_config(path: str) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """The torch flags and seeds of the config; None (logged) when it is unreadable or malformed."""
    try:
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError) as exc:
        _log({"event": "start", "error": f"cannot read the hook config: {exc}"})
        return None
    flags = config.get("torch") or {} if isinstance(config, dict) else None
    seed = config.get("seed") if isinstance(config, dict) else None
    if not isinstance(flags, dict) or not isinstance(seed, (dict, type(None))):
        _log({"event": "start", "error": "malformed hook config: nothing applied"})
        return None
    return flags, seed


def _seed_python(seed: dict[str, Any] | None) -> bool | str:
    if seed is None or "python" not in seed:
        return False
    try:
        import random

        random.seed(int(seed["python"]))
    except Exception as exc:
        return _failed(exc)
    return True


def _arm(path: str) -> None:
    read = _read_config(path)
    if read is None:
        return
    flags, seed = read
    _log({"event": "start", "seed_python": _seed_python(seed)})
    callbacks: dict[str, Callable[[Any], None]] = {}
    if flags or (seed is not None and "torch" in seed):
        callbacks["torch"] = lambda torch: _log(
            {"event": "torch", "flags": apply_torch(torch, flags, seed)}
        )
    if seed is not None and "numpy" in seed:
        callbacks["numpy"] = _seed_numpy(seed)
    watcher = _ImportWatcher(callbacks)
    for name in [name for name in callbacks if name in sys.modules]:
        watcher.fire(name, sys.modules[name])
    if watcher.callbacks:
        sys.meta_path.insert(0, watcher)


def chain_sitecustomize(own_dir: str) -> None:
    """Run the sitecustomize our directory shadows (a distribution's or a venv's), if any."""
    from importlib.machinery import PathFinder

    others = [entry for entry in sys.path if os.path.abspath(entry or ".") != own_dir]
    spec = PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    from importlib.util import module_from_spec

    try:
        spec.loader.exec_module(module_from_spec(spec))
    except Exception as exc:  # a broken site hook is the site's problem, not the job's
        _log({"event": "start", "error": f"the shadowed sitecustomize failed: {exc}"})


SITECUSTOMIZE = """\
# Written by `envsnap run`: apply recorded runtime conditions at interpreter start.
import os as _os

import _envsnap_startup

_envsnap_startup.install()
_envsnap_startup.chain_sitecustomize(_os.path.dirname(_os.path.abspath(__file__)))
"""
