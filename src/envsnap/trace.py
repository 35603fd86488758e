"""Public path of `envsnap.training.trace` (kept so that `from envsnap.trace import ...` works)."""

from envsnap.training.trace import (
    DIGESTS,
    Diagnosis,
    Trace,
    TraceDiff,
    TraceError,
    TraceRecorder,
    compare_traces,
    digest_tree,
    read_trace,
)

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
