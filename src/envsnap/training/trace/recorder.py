"""The step-trace recorder: one flushed JSONL line per optimizer update.

Used inside the training loop::

    recorder = TraceRecorder("trace.jsonl")
    ...
    optimizer.step(); scheduler.step()
    recorder.record(update=step, loss=loss, model=model, optimizer=optimizer,
                    scheduler=scheduler, sample_ids=ids)

The file is opened for appending, so a resumed run continues the same trace; each opening writes
a `session` line first, which is how `envsnap trace diff` knows where a resume happened.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from envsnap._version import __version__
from envsnap.training.trace.digests import digest_tree, rng_digests

TRACE_FORMAT = 1
DigestName = Literal["samples", "params", "optim", "sched", "rng"]
DIGESTS: tuple[DigestName, ...] = ("samples", "params", "optim", "sched", "rng")


def exact_number(value: Any) -> float | str | None:
    """A float as JSON can hold it exactly: a number (shortest round-trip repr) or a string.

    NaN and infinities are not JSON numbers, so they are written as "nan", "inf", "-inf".
    """
    if value is None:
        return None
    number = float(value.item() if hasattr(value, "item") else value)
    if math.isfinite(number):
        return number
    return "nan" if math.isnan(number) else ("inf" if number > 0 else "-inf")


class TraceRecorder:
    """Append one line per optimizer update to a JSONL trace.

    `every`: write only updates whose number is a multiple of it (the others cost nothing
    but a loss-scale read). `digests`: which of `DIGESTS` to compute; parameters and optimizer
    state are the expensive ones (see the bench figures in the README). `fsync`: also force
    each line to disk, not just to the OS.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        every: int = 1,
        digests: Iterable[DigestName] = DIGESTS,
        fsync: bool = False,
    ) -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive int, not {every!r}")
        chosen = tuple(dict.fromkeys(digests))
        unknown = sorted(set(chosen) - set(DIGESTS))
        if unknown:
            raise ValueError(f"unknown digests {unknown}; choose from {list(DIGESTS)}")
        self.path = Path(path)
        self.every = every
        self.digests: frozenset[str] = frozenset(chosen)
        self._fsync = fsync
        self._last_update: int | None = None
        self._last_scale: float | None = None
        self._skipped_pending = 0
        self._micro_digests: list[str] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._write(
            {
                "kind": "session",
                "format": TRACE_FORMAT,
                "envsnap": __version__,
                "every": every,
                "digests": sorted(self.digests),
                "pid": os.getpid(),
            }
        )

    def _write(self, line: Mapping[str, Any]) -> None:
        # One write per line on an append-mode file: a reader never sees half a line from us.
        self._file.write(json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n")
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())

    def micro_step(self, *, sample_ids: Any = None, batch: Any = None) -> None:
        """Note one micro-batch of the current update (call it once per micro-batch).

        The next `record` line counts these micro-batches and digests their sample ids (or the
        batch tensors when there are no ids), in order.
        """
        if "samples" in self.digests and (sample_ids is not None or batch is not None):
            self._micro_digests.append(digest_tree(sample_ids if sample_ids is not None else batch))
        else:
            self._micro_digests.append("")

    def record(
        self,
        *,
        update: int,
        loss: Any,
        model: Any = None,
        optimizer: Any = None,
        scheduler: Any = None,
        scaler: Any = None,
        sample_ids: Any = None,
        batch: Any = None,
        grad_norm: Any = None,
        skipped: bool | None = None,
    ) -> dict[str, Any] | None:
        """Record optimizer update number `update` (1-based: updates completed so far).

        Call it after `optimizer.step()` / `scheduler.step()` / `scaler.update()`. `sample_ids`
        or `batch` describe the inputs when `micro_step` was not used. `skipped` says whether
        the loss scaler skipped this update; when omitted it is inferred from a fall of the
        scale since the previous call. Returns the line written, or None when `every` skips it.
        """
        if isinstance(update, bool) or not isinstance(update, int) or update < 0:
            raise ValueError(f"update must be a non-negative int, not {update!r}")
        if self._last_update is not None and update <= self._last_update:
            raise ValueError(
                f"update {update} is not after the previous update {self._last_update}"
            )
        self._last_update = update
        scale = self._scale(scaler)
        if skipped is None:
            # GradScaler lowers the scale exactly when it found inf/NaN and skipped the step.
            skipped = (
                scale is not None and self._last_scale is not None and scale < self._last_scale
            )
        self._last_scale = scale
        self._skipped_pending += int(skipped)
        if sample_ids is not None or batch is not None:
            self.micro_step(sample_ids=sample_ids, batch=batch)
        micro = self._micro_digests
        self._micro_digests = []
        if update % self.every:
            return None
        line: dict[str, Any] = {
            "kind": "update",
            "update": update,
            "micro_steps": len(micro) or 1,
            "loss": exact_number(loss),
            "lr": self._lrs(optimizer),
            "grad_norm": exact_number(grad_norm),
            "scale": scale,
            "skipped": self._skipped_pending,
        }
        self._skipped_pending = 0
        if "samples" in self.digests:
            line["samples"] = digest_tree(micro) if any(micro) else None
        if "params" in self.digests:
            line["params"] = digest_tree(model.state_dict()) if model is not None else None
        if "optim" in self.digests:
            line["optim"] = digest_tree(optimizer.state_dict()) if optimizer is not None else None
        if "sched" in self.digests:
            line["sched"] = digest_tree(scheduler.state_dict()) if scheduler is not None else None
        if "rng" in self.digests:
            line["rng"] = rng_digests()
        self._write(line)
        return line

    @staticmethod
    def _scale(scaler: Any) -> float | None:
        if scaler is None or not scaler.is_enabled():
            return None
        return float(scaler.get_scale())

    @staticmethod
    def _lrs(optimizer: Any) -> list[float | str | None] | None:
        if optimizer is None:
            return None
        return [exact_number(group["lr"]) for group in optimizer.param_groups]

    def close(self) -> None:
        """Close the trace file (lines are already flushed)."""
        self._file.close()

    def __enter__(self) -> TraceRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
