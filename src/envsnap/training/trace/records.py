"""Reading step traces: strict line-by-line validation with errors that name the line."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from envsnap.errors import EnvsnapError
from envsnap.files.reader import parse_json, read_lines
from envsnap.manifest.sections.base import Model
from envsnap.manifest.validation import validate_one_line

Number = float | str

# One line per optimizer update, a few hundred bytes each: a million updates fit well within.
MAX_TRACE_BYTES = 1024 * 1024 * 1024


class TraceError(EnvsnapError):
    """A trace file is missing, truncated, not JSON or not an envsnap trace."""


class SessionLine(Model):
    kind: Literal["session"] = Field(description="A recorder was opened on this file.")
    format: int = Field(description="Trace line format version.")
    envsnap: str | None = Field(default=None, description="envsnap version that wrote it.")
    every: int = Field(ge=1, description="Only updates that are multiples of this were written.")
    digests: list[str] = Field(description="Digests this session computed.")
    pid: int | None = Field(default=None, description="Writing process id.")


class UpdateLine(Model):
    kind: Literal["update"] = Field(description="One optimizer update.")
    update: int = Field(ge=0, description="Optimizer updates completed, this one included.")
    micro_steps: int = Field(ge=1, description="Micro-batches accumulated into this update.")
    loss: Number | None = Field(description="Loss, exact (non-finite values as strings).")
    lr: list[Number | None] | None = Field(default=None, description="lr of each param group.")
    grad_norm: Number | None = Field(default=None, description="Gradient norm, when given.")
    scale: float | None = Field(default=None, description="Loss-scaler scale after the update.")
    skipped: int = Field(default=0, ge=0, description="Skipped updates since the last line.")
    samples: str | None = Field(default=None, description="Digest of the sample ids / batch.")
    params: str | None = Field(default=None, description="Digest of the model state.")
    optim: str | None = Field(default=None, description="Digest of the optimizer state.")
    sched: str | None = Field(default=None, description="Digest of the scheduler state.")
    rng: dict[str, str | None] | None = Field(default=None, description="RNG state digests.")


@dataclass
class Trace:
    """A parsed trace: the updates (later sessions replace what they re-recorded) and resumes."""

    path: str
    updates: dict[int, UpdateLine] = field(default_factory=dict)
    resumes: list[int] = field(default_factory=list)
    """First update of every session that continued an earlier run."""
    skipped_before: dict[int, int] = field(default_factory=dict)
    """Skipped updates recorded up to and including each update."""


def _parse_line(path: str, number: int, text: str, last: bool) -> SessionLine | UpdateLine:
    try:
        raw = parse_json(text.encode("utf-8"), f"{path}: line {number}", "a trace record")
    except EnvsnapError as exc:
        # A syntax error on a last line without its newline: the writer stopped mid-line.
        if last and not text.endswith("\n") and " at line " in str(exc):
            raise TraceError(
                f"{path}: line {number} is truncated (incomplete JSON with no newline at the "
                "end): the writer stopped mid-line"
            ) from None
        raise TraceError(str(exc).replace(": not valid JSON", " is not JSON", 1)) from None
    if not isinstance(raw, dict) or raw.get("kind") not in ("session", "update"):
        raise TraceError(
            f"{path}: line {number} is not an envsnap trace record (expected an object with "
            "kind 'session' or 'update')"
        )
    context = f"{path}: line {number} is not a valid {raw['kind']} record"
    if raw["kind"] == "session":
        return validate_one_line(SessionLine, raw, error=TraceError, context=context, top="record")
    return validate_one_line(UpdateLine, raw, error=TraceError, context=context, top="record")


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Parse and validate a trace file; raise `TraceError` naming the first bad line."""
    name = os.fspath(path)
    lines = read_lines(name, "a trace file", max_bytes=MAX_TRACE_BYTES, error=TraceError)
    trace = Trace(path=name)
    session: SessionLine | None = None
    session_first: int | None = None
    session_last: int | None = None
    for index, text in lines:
        if not text.strip():
            continue
        record = _parse_line(name, index, text, last=not text.endswith("\n"))
        if isinstance(record, SessionLine):
            session, session_first, session_last = record, None, None
            continue
        if session is None:
            raise TraceError(
                f"{name}: line {index} comes before any session line: not an envsnap trace"
            )
        update = record.update
        if session_last is not None and update <= session_last:
            raise TraceError(
                f"{name}: line {index}: update {update} follows update {session_last} in the "
                "same session: the trace is out of order"
            )
        if session_first is None:
            session_first = update
            continues = bool(trace.updates) or update > session.every
            # A later session re-running updates (restart from an older checkpoint) replaces them.
            for stale in [u for u in trace.updates if u >= update]:
                del trace.updates[stale]
            trace.resumes = [u for u in trace.resumes if u < update]
            if continues:
                trace.resumes.append(update)
        session_last = update
        trace.updates[update] = record
    if not trace.updates:
        raise TraceError(f"{name}: no update records (is it an envsnap trace?)")
    total = 0
    for update in sorted(trace.updates):
        total += trace.updates[update].skipped
        trace.skipped_before[update] = total
    return trace
