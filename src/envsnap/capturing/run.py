"""Run the selected collectors, each isolated and time-boxed, and assemble a manifest.

Collectors fill plain records (envsnap.manifest.records), and the sealed document is built
from them without pydantic: what a capture writes is validated when it is read, or here on
request (`validated`), which is what the in-job API returns.

Each collector runs in its own daemon thread. The capture waits for it until its own limit or
the total budget runs out, whichever comes first. A collector that raises or hangs only costs
its own section: it gets status `error` with the reason, and the manifest is written anyway.
A hung thread is abandoned (daemon threads never block interpreter exit).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from envsnap._version import __version__
from envsnap.capturing.collectors import COLLECTORS
from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.declared import DEFAULT_DATA_BUDGET_S
from envsnap.capturing.redact import Redactor
from envsnap.capturing.scrub import clean_document, recordable_extra
from envsnap.errors import EnvsnapError
from envsnap.manifest.canonical import digest_of
from envsnap.manifest.compat import omit_unset_additions
from envsnap.manifest.records import (
    SECTION_RECORDS,
    CollectorRecord,
    Manifest,
    RunInfo,
    Section,
    ToolInfo,
    plain,
)

if TYPE_CHECKING:
    from envsnap.manifest import model

CollectorStatus = Literal["ok", "skipped", "error"]


@dataclass
class _Outcome:
    section: Section | None = None
    # The section's JSON form, made in the collector's own thread: a value that is not JSON
    # (an object a job handed over, say) costs that collector, not the capture.
    document: dict[str, Any] | None = None
    status: CollectorStatus = "error"
    reason: str | None = "did not finish"
    duration_ms: float = 0.0

    def record(self) -> CollectorRecord:
        return CollectorRecord(status=self.status, reason=self.reason, duration_ms=self.duration_ms)


def select_collectors(
    only: Sequence[str] | None = None,
    skip: Sequence[str] | None = None,
    registry: Mapping[str, Collector] | None = None,
) -> list[str]:
    """Resolve --only/--skip against the registry, keeping registry order."""
    registry = COLLECTORS if registry is None else registry
    for name in (*(only or ()), *(skip or ())):
        if name not in registry:
            known = ", ".join(registry)
            raise EnvsnapError(f"unknown collector {name!r} (known: {known})")
    names = [name for name in registry if not only or name in only]
    return [name for name in names if name not in set(skip or ())]


def _run_one(
    collector: Collector,
    context: CaptureContext,
    outcome: _Outcome,
    expected: type[Section] | None,
) -> None:
    started = time.perf_counter()
    try:
        section = collector.collect(context)
        if expected is None or not isinstance(section, expected):
            # The manifest has one typed field per section: anything else would break it.
            want = expected.__name__ if expected else "a manifest section"
            outcome.reason = f"returned {type(section).__name__}, expected {want}"
        else:
            outcome.document = plain(section)
            outcome.section = section
            outcome.status, outcome.reason = "ok", None
    except CollectorUnavailable as exc:
        outcome.status, outcome.reason = "skipped", str(exc) or "unavailable"
    except BaseException as exc:
        outcome.status = "error"
        outcome.reason = f"{type(exc).__name__}: {context.redactor.redact_text(str(exc))}"[:500]
    finally:
        outcome.duration_ms = round((time.perf_counter() - started) * 1000, 3)


def _start(
    name: str, collector: Collector, context: CaptureContext
) -> tuple[_Outcome, threading.Thread]:
    outcome = _Outcome()
    thread = threading.Thread(
        target=_run_one,
        args=(collector, context, outcome, SECTION_RECORDS.get(name)),
        name=f"envsnap-{name}",
        daemon=True,
    )
    thread.start()
    return outcome, thread


def _finish(
    collector: Collector,
    context: CaptureContext,
    outcome: _Outcome,
    thread: threading.Thread,
    started_at: float,
) -> _Outcome:
    """Wait for a collector until its own limit or the capture's deadline."""
    own_deadline = started_at + collector.timeout_s
    thread.join(max(0.0, min(own_deadline, context.deadline) - time.monotonic()))
    if not thread.is_alive():
        return outcome
    # Abandoned: a fresh outcome, so that a late finish changes nothing recorded.
    limit = min(collector.timeout_s, context.deadline - started_at)
    return _Outcome(
        reason=f"timed out after {limit:.1f} s (abandoned)",
        duration_ms=round((time.monotonic() - started_at) * 1000, 3),
    )


def _collect(
    names: Iterable[str], context: CaptureContext, registry: Mapping[str, Collector]
) -> dict[str, _Outcome]:
    """Run collectors concurrently, each until its own limit or the capture's deadline; then
    the exclusive ones, one at a time."""
    started_at = time.monotonic()
    chosen = [(name, registry[name]) for name in names]
    jobs = [
        (name, collector, *_start(name, collector, context))
        for name, collector in chosen
        if not collector.exclusive
    ]
    outcomes = {
        name: _finish(collector, context, outcome, thread, started_at)
        for name, collector, outcome, thread in jobs
    }
    for name, collector in chosen:
        if collector.exclusive:
            alone_from = time.monotonic()
            outcome, thread = _start(name, collector, context)
            outcomes[name] = _finish(collector, context, outcome, thread, alone_from)
    return {name: outcomes[name] for name, _ in chosen}


def run_collectors(
    names: Iterable[str],
    context: CaptureContext,
    registry: Mapping[str, Collector] | None = None,
) -> tuple[dict[str, Section | None], dict[str, CollectorRecord]]:
    """Run collectors concurrently; return sections and one record per collector."""
    outcomes = _collect(names, context, COLLECTORS if registry is None else registry)
    sections = {name: outcome.section for name, outcome in outcomes.items()}
    return sections, {name: outcome.record() for name, outcome in outcomes.items()}


def build_document(
    *,
    names: Sequence[str],
    context: CaptureContext,
    label: str | None = None,
    argv: Sequence[str] | None = None,
    extra: dict[str, Any] | None = None,
    registry: Mapping[str, Collector] | None = None,
) -> dict[str, Any]:
    """Capture the given collectors into a sealed manifest document (its JSON form)."""
    created_at = datetime.now(timezone.utc)
    if context.torch is None:
        from envsnap.capturing.collectors.torch_runtime import resolve_torch

        # Before any collector starts: which torch they read must not depend on timing.
        context.torch = resolve_torch(context, wanted="torch" in names or "probe" in names)
    outcomes = _collect(names, context, COLLECTORS if registry is None else registry)
    records = {name: outcome.record() for name, outcome in outcomes.items()}
    redactor = context.redactor
    manifest = Manifest(
        tool=ToolInfo(
            version=__version__,
            collectors_requested=list(names),
            collectors_run=[name for name in names if records[name].status != "error"],
        ),
        # As pydantic writes an aware UTC datetime: ISO 8601 with a Z.
        created_at=created_at.isoformat().replace("+00:00", "Z"),
        run=RunInfo(
            argv=redactor.redact_argv(list(sys.argv if argv is None else argv)),
            cwd=str(context.cwd),
            label=redactor.redact_text(label) if label else label,
            pid=os.getpid(),
        ),
        collectors=records,
        extra=recordable_extra(extra, redactor),
    )
    document: dict[str, Any] = plain(manifest)
    document.update(
        {name: outcome.document for name, outcome in outcomes.items() if outcome.document}
    )
    return sealed(clean_document(document, redactor))


def sealed(document: dict[str, Any]) -> dict[str, Any]:
    """The document in its written form, with the digest of its content."""
    omit_unset_additions(document)
    document["digest"] = digest_of(document)
    return document


def validated(document: dict[str, Any]) -> model.Manifest:
    """The manifest model of a document a capture built (which is changed in place to match).

    A section that does not validate (a value a job object produced that the schema refuses,
    or a collector's bug) costs only itself: it is dropped, its collector's record says why,
    and the document is sealed again.
    """
    from pydantic import ValidationError

    from envsnap.manifest.model import Manifest as ManifestModel

    while True:
        try:
            # Sealed again from the model: a value the model coerces (3 into a float field
            # set after a record was built) must not leave a digest the file fails.
            manifest = ManifestModel.model_validate(document).sealed()
        except ValidationError as exc:
            invalid = {
                str(error["loc"][0]): error["msg"]
                for error in exc.errors()
                if error["loc"]
                and document.get(str(error["loc"][0])) is not None
                and str(error["loc"][0]) in SECTION_RECORDS
            }
            if not invalid:
                raise
            for name, message in invalid.items():
                document[name] = None
                record = document["collectors"].setdefault(name, {"duration_ms": 0.0})
                record.update(status="error", reason=f"invalid section: {message}"[:500])
            ran = document["tool"]["collectors_run"]
            document["tool"]["collectors_run"] = [name for name in ran if name not in invalid]
            continue
        final = manifest.to_document()
        if final != document:
            document.clear()
            document.update(final)
        return manifest


def capture_budget_s(config: CaptureConfig, inputs: Mapping[str, Any] | None = None) -> float:
    """The whole capture's time budget: the configured one, plus data.budget_s when there is
    data to hash.

    Only the data collector uses the extra time, and it stops hashing by itself when
    data.budget_s runs out; the other collectors keep their own short limits.
    """
    # Config tables were validated when the config was loaded.
    table = config.declared.get("data", {})
    has_data = table.get("paths") or table.get("sources") or (inputs or {}).get("data") is not None
    return config.budget_s + (
        float(table.get("budget_s", DEFAULT_DATA_BUDGET_S)) if has_data else 0.0
    )


def capture_document(
    *,
    config: CaptureConfig | None = None,
    only: Sequence[str] | None = None,
    skip: Sequence[str] | None = None,
    label: str | None = None,
    inputs: Mapping[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    in_job: bool = False,
    job_modules: frozenset[str] | None = None,
) -> dict[str, Any]:
    """Capture the current process's conditions into a sealed document (used by the CLI).

    The capture applies its own time budget (`capture_budget_s`); callers pass the config only.
    `in_job` says the capturing process is the training job itself, so its live state (RNG
    states, seeds) describes the job; the CLI captures from outside and leaves it False.
    `job_modules`: the top-level modules the job had loaded when it called the API.
    """
    config = config or CaptureConfig()
    names = select_collectors(only, skip)
    context = CaptureContext.from_process(
        config=config,
        redactor=Redactor(extra_patterns=config.redact_patterns),
        inputs=dict(inputs or {}),
        deadline=time.monotonic() + capture_budget_s(config, inputs),
        in_job=in_job,
        job_modules=job_modules,
    )
    return build_document(names=names, context=context, label=label, extra=extra)


def capture_process(**kwargs: Any) -> model.Manifest:
    """`capture_document`, validated into the manifest model (used by the in-job API)."""
    return validated(capture_document(**kwargs))


def build_manifest(**kwargs: Any) -> model.Manifest:
    """`build_document`, validated into the manifest model."""
    return validated(build_document(**kwargs))
