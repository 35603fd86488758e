"""Run the selected collectors, each isolated and time-boxed, and assemble a manifest.

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
from typing import Any

from envsnap._version import __version__
from envsnap.capturing.collectors import COLLECTORS
from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.declared import DataDeclared, parse
from envsnap.capturing.redact import Redactor
from envsnap.capturing.scrub import recordable_extra, scrubbed
from envsnap.errors import EnvsnapError
from envsnap.manifest.model import CollectorRecord, CollectorStatus, Manifest, RunInfo, ToolInfo
from envsnap.manifest.sections import SECTION_MODELS
from envsnap.manifest.sections.base import Section


@dataclass
class _Outcome:
    section: Section | None = None
    status: CollectorStatus = "error"
    reason: str | None = "did not finish"
    duration_ms: float = 0.0


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


def _run_one(collector: Collector, context: CaptureContext, outcome: _Outcome) -> None:
    started = time.perf_counter()
    try:
        outcome.section = collector.collect(context)
        outcome.status, outcome.reason = "ok", None
    except CollectorUnavailable as exc:
        outcome.status, outcome.reason = "skipped", str(exc) or "unavailable"
    except BaseException as exc:
        outcome.status = "error"
        outcome.reason = f"{type(exc).__name__}: {context.redactor.redact_text(str(exc))}"[:500]
    finally:
        outcome.duration_ms = round((time.perf_counter() - started) * 1000, 3)


def run_collectors(
    names: Iterable[str],
    context: CaptureContext,
    registry: Mapping[str, Collector] | None = None,
) -> tuple[dict[str, Section | None], dict[str, CollectorRecord]]:
    """Run collectors concurrently; return sections and one record per collector."""
    registry = COLLECTORS if registry is None else registry
    started_at = time.monotonic()
    jobs: list[tuple[str, Collector, _Outcome, threading.Thread]] = []
    for name in names:
        collector = registry[name]
        outcome = _Outcome()
        thread = threading.Thread(
            target=_run_one, args=(collector, context, outcome), name=f"envsnap-{name}", daemon=True
        )
        thread.start()
        jobs.append((name, collector, outcome, thread))

    sections: dict[str, Section | None] = {}
    records: dict[str, CollectorRecord] = {}
    for name, collector, outcome, thread in jobs:
        own_deadline = started_at + collector.timeout_s
        thread.join(max(0.0, min(own_deadline, context.deadline) - time.monotonic()))
        if thread.is_alive():
            limit = min(collector.timeout_s, context.deadline - started_at)
            sections[name] = None
            records[name] = CollectorRecord(
                status="error",
                reason=f"timed out after {limit:.1f} s (abandoned)",
                duration_ms=round((time.monotonic() - started_at) * 1000, 3),
            )
            continue
        expected = SECTION_MODELS.get(name)
        if outcome.status == "ok" and (
            expected is None or not isinstance(outcome.section, expected)
        ):
            # The manifest has one typed field per section: anything else would break it.
            got = type(outcome.section).__name__
            want = expected.__name__ if expected else "a manifest section"
            outcome.status, outcome.reason = "error", f"returned {got}, expected {want}"
        sections[name] = outcome.section if outcome.status == "ok" else None
        records[name] = CollectorRecord(
            status=outcome.status,
            reason=outcome.reason,
            duration_ms=outcome.duration_ms,
        )
    return sections, records


def build_manifest(
    *,
    names: Sequence[str],
    context: CaptureContext,
    label: str | None = None,
    argv: Sequence[str] | None = None,
    extra: dict[str, Any] | None = None,
    registry: Mapping[str, Collector] | None = None,
) -> Manifest:
    """Capture the given collectors into a sealed manifest."""
    created_at = datetime.now(timezone.utc)
    if context.torch is None:
        from envsnap.capturing.collectors.torch_runtime import resolve_torch

        # Before any collector starts: which torch they read must not depend on timing.
        context.torch = resolve_torch(context, wanted="torch" in names)
    sections, records = run_collectors(names, context, registry)
    filled: dict[str, Any] = {n: section for n, section in sections.items() if section is not None}
    redactor = context.redactor
    # Every part was validated when it was built (sections by their collectors, records and
    # tool/run info here; recordable_extra leaves only JSON values), so the manifest is
    # assembled without validating the whole tree again: that would build the validator of
    # every section model, used or not.
    manifest = Manifest.model_construct(
        tool=ToolInfo(
            version=__version__,
            collectors_requested=list(names),
            collectors_run=[name for name in names if records[name].status != "error"],
        ),
        created_at=created_at,
        run=RunInfo(
            argv=redactor.redact_argv(list(sys.argv if argv is None else argv)),
            cwd=str(context.cwd),
            label=redactor.redact_text(label) if label else label,
            pid=os.getpid(),
        ),
        collectors=records,
        extra=recordable_extra(extra, redactor),
        **filled,
    )
    return scrubbed(manifest, redactor).sealed()


def capture_budget_s(config: CaptureConfig, inputs: Mapping[str, Any] | None = None) -> float:
    """The whole capture's time budget: the configured one, plus data.budget_s when there is
    data to hash.

    Only the data collector uses the extra time, and it stops hashing by itself when
    data.budget_s runs out; the other collectors keep their own short limits.
    """
    settings: DataDeclared = parse("data", config.declared.get("data", {}), "config")
    has_data = settings.paths or settings.sources or (inputs or {}).get("data") is not None
    return config.budget_s + (settings.budget_s if has_data else 0.0)


def capture_process(
    *,
    config: CaptureConfig | None = None,
    only: Sequence[str] | None = None,
    skip: Sequence[str] | None = None,
    label: str | None = None,
    inputs: Mapping[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    in_job: bool = False,
) -> Manifest:
    """Capture the current process's conditions (used by the CLI and the in-job API).

    The capture applies its own time budget (`capture_budget_s`); callers pass the config only.
    `in_job` says the capturing process is the training job itself, so its live state (RNG
    states, seeds) describes the job; the CLI captures from outside and leaves it False.
    """
    config = config or CaptureConfig()
    names = select_collectors(only, skip)
    context = CaptureContext.from_process(
        config=config,
        redactor=Redactor(extra_patterns=config.redact_patterns),
        inputs=dict(inputs or {}),
        deadline=time.monotonic() + capture_budget_s(config, inputs),
        in_job=in_job,
    )
    return build_manifest(names=names, context=context, label=label, extra=extra)
