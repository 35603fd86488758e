"""Save and load everything an exact resume needs, atomically, with a completion marker.

    save_training_state("ckpt/step-100", model=model, optimizer=opt, scheduler=sched,
                        data_cursor={"epoch": 1, "position": 512}, seeds=seed_manager,
                        update=100, epoch=1)
    info = load_training_state("ckpt/step-100", model=model, optimizer=opt,
                               scheduler=sched, seeds=seed_manager)
    start = info.update + 1

The save is a directory: `training_state.pt` is written atomically first, then `COMPLETE.json`
(its sha256 and size) last. Loading refuses a directory without a matching marker, and loads
with `torch.load(weights_only=True)` only, so nothing in a save can run code.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from envsnap._version import __version__
from envsnap.errors import EnvsnapError
from envsnap.files.atomic import write_atomic
from envsnap.manifest.canonical import DIGEST_PREFIX, pretty_text
from envsnap.manifest.hashing import sha256_file
from envsnap.training.checkpoint import layout
from envsnap.training.checkpoint.safeload import load_torch_safely


class SeedState(Protocol):
    """Anything that can snapshot and restore RNG states, e.g. `envsnap.training.seeding.SeedManager`."""

    def state(self) -> Any: ...

    def restore(self, state: Any) -> None: ...


@runtime_checkable
class Stateful(Protocol):
    """Objects with `state_dict()` / `load_state_dict()` (modules, optimizers, samplers...)."""

    def state_dict(self) -> Any: ...

    def load_state_dict(self, state_dict: Any) -> Any: ...


@dataclass
class ResumeInfo:
    """What `load_training_state` found besides the objects it restored in place."""

    update: int
    epoch: int | None
    micro_step: int
    data_cursor: Any
    extra: Any
    items: list[str] = field(default_factory=list)


def _state_of(value: Any) -> Any:
    return value.state_dict() if isinstance(value, Stateful) else value


def save_training_state(
    path: str | os.PathLike[str],
    *,
    model: Stateful,
    update: int,
    optimizer: Stateful | None = None,
    scheduler: Stateful | None = None,
    scaler: Stateful | None = None,
    data_cursor: Stateful | Mapping[str, Any] | None = None,
    seeds: SeedState | None = None,
    epoch: int | None = None,
    micro_step: int = 0,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write a complete resume point to directory `path` and return it.

    `update` is the number of completed optimizer updates. `micro_step` is the number of
    micro-batches accumulated since the last update (0 at an update boundary); a save with
    `micro_step > 0` is recorded as mid-accumulation and refused by `load_training_state`
    unless explicitly allowed. Everything saved must load with `torch.load(weights_only=True)`
    (tensors, containers, numbers, strings); anything else is rejected here, before writing.
    """
    import torch

    if isinstance(update, bool) or not isinstance(update, int) or update < 0:
        raise ValueError(f"update must be a non-negative int, not {update!r}")
    state: dict[str, Any] = {
        "format": layout.FORMAT,
        "model": model.state_dict(),
        "update": update,
        "epoch": epoch,
        "micro_step": micro_step,
        "at_boundary": micro_step == 0,
    }
    for key, value in (
        ("optimizer", optimizer),
        ("scheduler", scheduler),
        ("scaler", scaler),
        ("data_cursor", data_cursor),
    ):
        if value is not None:
            state[key] = _state_of(value)
    if seeds is not None:
        state["rng"] = seeds.state()
    if extra is not None:
        state["extra"] = dict(extra)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    data = buffer.getvalue()
    unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    if unsafe:
        raise EnvsnapError(
            f"cannot save a safely loadable training state: it contains {', '.join(unsafe[:3])}; "
            "convert those values to tensors, lists or numbers"
        )
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    marker = root / layout.MARKER
    # Remove the old marker first: while the new state is being written, the save is incomplete.
    with contextlib.suppress(FileNotFoundError):
        marker.unlink()
    state_path = write_atomic(root / layout.STATE_FILE, data)
    document = {
        "format": layout.FORMAT,
        "envsnap": __version__,
        "update": update,
        "epoch": epoch,
        "micro_step": micro_step,
        "at_boundary": micro_step == 0,
        "items": sorted(k for k in state if k not in ("format", "micro_step", "at_boundary")),
        "files": {
            layout.STATE_FILE: {
                "sha256": DIGEST_PREFIX + sha256_file(state_path),
                "bytes": len(data),
            }
        },
    }
    write_atomic(marker, pretty_text(document).encode("utf-8"))
    return root


def load_training_state(
    path: str | os.PathLike[str],
    *,
    model: Stateful | None = None,
    optimizer: Stateful | None = None,
    scheduler: Stateful | None = None,
    scaler: Stateful | None = None,
    data_cursor: Stateful | None = None,
    seeds: SeedState | None = None,
    allow_mid_accumulation: bool = False,
) -> ResumeInfo:
    """Restore the objects passed in from a complete save; refuse an incomplete one.

    Each object passed is restored in place; passing one whose state is not in the save is an
    error (resuming without it would silently change the trajectory). Objects not passed are
    left alone. The data cursor is returned in `ResumeInfo.data_cursor` (and loaded into
    `data_cursor` when a stateful object is given).
    """
    root = Path(path)
    if not root.is_dir():
        raise EnvsnapError(f"{root}: no such training-state directory")
    _, problem = layout.verify(root)
    if problem:
        raise EnvsnapError(f"{root}: refusing to load: {problem}")
    state = load_torch_safely(root / layout.STATE_FILE)
    if not isinstance(state, Mapping) or state.get("format") != layout.FORMAT:
        raise EnvsnapError(f"{root}: not an envsnap training state")
    if not state.get("at_boundary", True) and not allow_mid_accumulation:
        raise EnvsnapError(
            f"{root}: refusing to load: saved in the middle of gradient accumulation "
            f"(micro-step {state.get('micro_step')}); the partial gradients are not in the save. "
            "Pass allow_mid_accumulation=True to load it anyway"
        )
    for key, target in (
        ("model", model),
        ("optimizer", optimizer),
        ("scheduler", scheduler),
        ("scaler", scaler),
        ("data_cursor", data_cursor),
    ):
        if target is None:
            continue
        if key not in state:
            raise EnvsnapError(f"{root}: the save holds no {key} state to restore")
        target.load_state_dict(state[key])
    if seeds is not None:
        if "rng" not in state:
            raise EnvsnapError(f"{root}: the save holds no RNG state to restore")
        seeds.restore(state["rng"])
    return ResumeInfo(
        update=int(state["update"]),
        epoch=state.get("epoch"),
        micro_step=int(state.get("micro_step", 0)),
        data_cursor=state.get("data_cursor"),
        extra=state.get("extra"),
        items=sorted(k for k in state if k not in ("format",)),
    )
