"""Auditing many manifests: streaming, parallel, with bounded memory.

Paths are read lazily and sent to worker processes in batches; at most `2 x jobs` batches are
in flight, and results come back in input order as each batch completes, so memory stays
bounded by the window however many manifests there are. Each worker loads the database once.

Why processes: the cost is parsing JSON (about 0.2 ms for a 60 KB manifest) plus evaluating
conditions in Python, both CPU-bound under the GIL, so threads would not scale; an embedded
SQL engine would still hand every document back to Python to evaluate the condition grammar.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor

from envsnap.audit.database import Database, load
from envsnap.audit.results import AuditResult
from envsnap.audit.sources import audit_path_safely
from envsnap.diff.report import Target

BATCH = 128

# The worker's database, set once by the pool initializer (a dict, so no `global` is needed).
_WORKER: dict[str, Database] = {}


def _init(db_dir: str | None) -> None:
    _WORKER["db"] = load(db_dir)


def _batch(paths: Sequence[str], target: Target, ignore: Sequence[str]) -> list[str]:
    # Results travel as JSON text: pydantic's serializer and parser are compiled, and a list of
    # strings pickles far faster than nested models.
    database = _WORKER["db"]
    return [audit_path_safely(p, database, target, ignore).model_dump_json() for p in paths]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def audit_many(
    paths: Iterable[str],
    *,
    db_dir: str | None = None,
    target: Target = "close",
    ignore: Sequence[str] = (),
    jobs: int | None = None,
) -> Iterator[AuditResult]:
    """Audit every path, in order; `jobs=1` runs in this process."""
    jobs = jobs or default_jobs()
    if jobs == 1:
        database = load(db_dir)
        for path in paths:
            yield audit_path_safely(path, database, target, ignore)
        return
    source = iter(paths)
    batches = iter(lambda: list(itertools.islice(source, BATCH)), [])
    with ProcessPoolExecutor(jobs, initializer=_init, initargs=(db_dir,)) as pool:
        window: deque[Future[list[str]]] = deque()
        for batch in batches:
            window.append(pool.submit(_batch, batch, target, tuple(ignore)))
            if len(window) >= 2 * jobs:
                yield from map(AuditResult.model_validate_json, window.popleft().result())
        while window:
            yield from map(AuditResult.model_validate_json, window.popleft().result())
