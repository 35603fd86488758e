"""Auditing many manifests: streaming, parallel, with bounded memory.

Paths are read lazily and sent to worker processes in batches of `BATCH`; at most `2 x jobs`
batches are in flight, and verdicts come back in input order as each batch completes, so
memory stays bounded by the window however many manifests there are. Each worker compiles the
database once. A worker reads, parses and validates each file and scans the raw JSON
(scan.py); what travels back is a `Verdict` of plain tuples, and findings are built only in
the process that shows them.

Why processes: the cost is parsing, validating and evaluating conditions, all CPU-bound
under the GIL, so threads would not scale; docs/audit.md has the measurements and why an
embedded SQL engine was not adopted.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, NamedTuple

from envsnap.audit import deadline
from envsnap.audit.database import Database, load
from envsnap.audit.engine import findings_of
from envsnap.audit.loads import loads_object
from envsnap.audit.results import AuditResult
from envsnap.audit.scan import Hit, scan
from envsnap.audit.sources import audit_path_safely
from envsnap.diff.cluster.model import is_cluster_document
from envsnap.diff.report import Target
from envsnap.errors import EnvsnapError, ManifestError
from envsnap.files.reader import read_input
from envsnap.manifest.model import KNOWN_SCHEMA_VERSIONS, MAX_MANIFEST_BYTES, check_document
from envsnap.manifest.seal_check import check_seal, refuse_mismatches, refusing

BATCH = 256


class Verdict(NamedTuple):
    """One manifest's audit as plain data: hits, or an error, or (for a cluster manifest or
    input the fast path does not take) the full result as JSON text."""

    source: str
    error: str | None
    hits: tuple[Hit, ...]
    result_json: str | None = None


def verdict_of(path: str, database: Database, ignore: frozenset[str], target: Target) -> Verdict:
    """Audit one file on the fast path; anything unusual takes the strict path instead."""
    try:
        data = read_input(
            path, "a manifest file", max_bytes=MAX_MANIFEST_BYTES, error=ManifestError
        )
    except EnvsnapError as exc:
        return Verdict(path, str(exc), ())
    document = loads_object(data)
    if (
        document is None
        or document.get("schema_version") not in KNOWN_SCHEMA_VERSIONS
        or is_cluster_document(document)
    ):
        # Invalid input gets the strict reader's one-line error; a cluster is audited rank
        # by rank. Both are rare in a fleet, so they may cost more.
        result = audit_path_safely(path, database, target, tuple(ignore))
        return Verdict(path, result.error, (), None if result.error else result.model_dump_json())
    refused = _refusal(document, path)
    if refused is not None:
        return Verdict(path, refused, ())
    return Verdict(path, None, tuple(scan(database.plan(ignore), document)))


def _refusal(document: dict[str, Any], path: str) -> str | None:
    """The one-line error the strict reader gives `document`, or None when it accepts it.

    Every manifest is validated against the model as one given alone is (`audit_path`): a
    fleet audit that accepted what `show`, `diff` and a single-file audit refuse would report
    on values that mean nothing. That costs more than the scan (about 0.55 ms a manifest).
    The digest is checked only under `--strict`, where a mismatch refuses the file; otherwise
    it would only print a warning, at about 0.4 ms a manifest more.
    """
    try:
        if refusing():
            check_seal(document, path)
        check_document(document, path)
    except EnvsnapError as exc:
        return str(exc)
    return None


def expand(verdict: Verdict, database: Database, target: Target) -> AuditResult:
    """The full result of a verdict scanned for `target`."""
    if verdict.result_json is not None:
        return AuditResult.model_validate_json(verdict.result_json)
    findings = findings_of(verdict.hits, database, target)
    return AuditResult.model_construct(
        source=verdict.source,
        kind="manifest",
        target=target,
        findings=findings,
        error=verdict.error,
    )


# The worker's database, ignore list and target, set once by the pool initializer.
_WORKER: dict[str, tuple[Database, frozenset[str], Target]] = {}


def _init(
    db_dir: str | None,
    ignore: frozenset[str],
    target: Target,
    bound: deadline.Bound | None,
    strict: bool,
) -> None:
    deadline.set_bound(bound)  # the parent's deadline, so a worker stops when it does
    refuse_mismatches(strict)  # the parent's --strict, which a spawned worker would not inherit
    _WORKER["job"] = (load(db_dir), ignore, target)


def _batch(paths: Sequence[str]) -> list[Verdict]:
    database, ignore, target = _WORKER["job"]
    return [verdict_of(path, database, ignore, target) for path in paths]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def scan_many(
    paths: Iterable[str],
    *,
    db_dir: str | None = None,
    target: Target = "close",
    ignore: Sequence[str] = (),
    jobs: int | None = None,
) -> Iterator[Verdict]:
    """The verdict of every path, in order; `jobs=1` runs in this process. `target` only
    matters for a cluster manifest, whose full result is built in the worker."""
    jobs, skip = jobs or default_jobs(), frozenset(ignore)
    if jobs == 1:
        database = load(db_dir)
        for path in paths:
            yield verdict_of(path, database, skip, target)
        return
    source = iter(paths)
    batches = iter(lambda: list(itertools.islice(source, BATCH)), [])
    with ProcessPoolExecutor(
        jobs, initializer=_init, initargs=(db_dir, skip, target, deadline.current(), refusing())
    ) as pool:
        window: deque[Future[list[Verdict]]] = deque()
        for batch in batches:
            window.append(pool.submit(_batch, batch))
            if len(window) >= 2 * jobs:
                yield from window.popleft().result()
        while window:
            yield from window.popleft().result()


def audit_many(
    paths: Iterable[str],
    *,
    db_dir: str | None = None,
    target: Target = "close",
    ignore: Sequence[str] = (),
    jobs: int | None = None,
) -> Iterator[AuditResult]:
    """Audit every path, in order, with full findings for `target`."""
    database = load(db_dir)
    for verdict in scan_many(paths, db_dir=db_dir, target=target, ignore=ignore, jobs=jobs):
        yield expand(verdict, database, target)
