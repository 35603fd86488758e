"""Step traces for resume verification.

- `TraceRecorder`: inside the training loop, one flushed JSONL line per optimizer update.
- `read_trace` / `compare_traces`: align two traces by update count, find the first divergence
  and diagnose it (what `envsnap trace diff` runs).
"""

from __future__ import annotations

from envsnap.training.trace.compare import Diagnosis, TraceDiff, compare_traces
from envsnap.training.trace.digests import digest_tree
from envsnap.training.trace.recorder import DIGESTS, TraceRecorder
from envsnap.training.trace.records import Trace, TraceError, read_trace

__all__ = [
    "DIGESTS",
    "Diagnosis",
    "Trace",
    "TraceDiff",
    "TraceError",
    "TraceRecorder",
    "compare_traces",
    "digest_tree",
    "read_trace",
]
