"""Snapshot and restore every RNG state as plain data (lists, ints, floats, str, tensors).

A snapshot fits in a checkpoint and loads with `torch.load(weights_only=True)`: nothing in it
needs pickle's arbitrary-object path. CUDA states are read only when CUDA is already initialised,
because reading them would otherwise initialise CUDA as a side effect.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Mapping
from typing import Any

from envsnap.errors import EnvsnapError

STATE_FORMAT = "envsnap.rng-state/1"


def installed(module: str) -> bool:
    """True when `module` is already imported or can be imported."""
    return module in sys.modules or importlib.util.find_spec(module) is not None


def cuda_initialized() -> bool | None:
    """Whether CUDA is initialised, asked without initialising it; None if torch isn't imported."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    return bool(torch.cuda.is_initialized())


def python_state(rng: random.Random | None = None) -> list[Any]:
    version, internal, gauss_next = (rng or random).getstate()
    return [version, list(internal), gauss_next]


def set_python_state(plain: Any, rng: random.Random | None = None) -> None:
    version, internal, gauss_next = plain
    (rng or random).setstate((int(version), tuple(int(x) for x in internal), gauss_next))


def numpy_legacy_state(state: Any) -> list[Any]:
    """numpy's `get_state()` tuple with its key array as a list."""
    name, keys, pos, has_gauss, cached = state
    return [str(name), [int(k) for k in keys], int(pos), int(has_gauss), float(cached)]


def _plain(value: Any) -> Any:
    """A numpy bit-generator state dict with arrays turned into lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _generator_state(obj: object) -> list[Any]:
    if isinstance(obj, random.Random):
        return ["python", python_state(obj)]
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(obj, numpy.random.Generator):
            return ["numpy-generator", _plain(obj.bit_generator.state)]
        if isinstance(obj, numpy.random.RandomState):
            return ["numpy-randomstate", numpy_legacy_state(obj.get_state(legacy=True))]
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Generator):
        return ["torch-generator", obj.get_state()]
    raise TypeError(
        f"cannot snapshot a {type(obj).__name__}: expected random.Random, a numpy "
        "Generator or RandomState, or a torch.Generator"
    )


def _set_generator_state(obj: object, kind: str, plain: Any) -> None:
    if kind == "python" and isinstance(obj, random.Random):
        set_python_state(plain, obj)
        return
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if kind == "numpy-generator" and isinstance(obj, numpy.random.Generator):
            obj.bit_generator.state = plain
            return
        if kind == "numpy-randomstate" and isinstance(obj, numpy.random.RandomState):
            obj.set_state(tuple(plain))
            return
    torch = sys.modules.get("torch")
    if torch is not None and kind == "torch-generator" and isinstance(obj, torch.Generator):
        obj.set_state(plain)
        return
    raise EnvsnapError(f"RNG state: saved {kind} state does not fit a {type(obj).__name__}")


def capture_state(generators: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Every global RNG state (python, numpy, torch CPU, initialised CUDA) plus `generators`."""
    state: dict[str, Any] = {"format": STATE_FORMAT, "python": python_state()}
    if installed("numpy"):
        import numpy

        state["numpy"] = numpy_legacy_state(numpy.random.get_state(legacy=True))
    if installed("torch"):
        import torch

        state["torch"] = torch.get_rng_state()
        # Reading CUDA states initialises CUDA; only do it when the job already has.
        if cuda_initialized():
            state["cuda"] = list(torch.cuda.get_rng_state_all())
    state["generators"] = {
        str(name): _generator_state(obj) for name, obj in sorted((generators or {}).items())
    }
    return state


def restore_state(state: Mapping[str, Any], generators: Mapping[str, object] | None = None) -> None:
    """Put back a `capture_state` snapshot. Raises `EnvsnapError` if it does not fit."""
    if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
        raise EnvsnapError(f"RNG state: not an envsnap RNG snapshot (expected {STATE_FORMAT})")
    saved = state.get("generators") or {}
    given = dict(generators or {})
    if set(saved) != set(given):
        raise EnvsnapError(
            "RNG state: saved generators "
            f"{sorted(saved)} do not match the ones passed to restore {sorted(given)}"
        )
    try:
        set_python_state(state["python"])
        if "numpy" in state:
            import numpy

            numpy.random.set_state(tuple(state["numpy"]))
        if "torch" in state:
            import torch

            torch.set_rng_state(state["torch"])
            if "cuda" in state:
                # Lazy in torch: queued until CUDA initialises, so this never forces it.
                torch.cuda.set_rng_state_all(state["cuda"])
        for name, (kind, plain) in saved.items():
            _set_generator_state(given[name], kind, plain)
    except EnvsnapError:
        raise
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise EnvsnapError(f"RNG state: cannot restore: {type(exc).__name__}: {exc}") from None
