"""`envsnap bisect`: which applicable differences between A and B change the job's metric.

Runs the job under A's conditions and under all of B's applicable ones, checks that the metric
discrepancy reproduces here and that A's metric is stable (one repeat), then searches the
candidate differences with ddmin for the smallest subset that, applied on top of A, gives B's
metric within the tolerance. Bounded by a run count and a time budget.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from envsnap.errors import EnvsnapError
from envsnap.experiment.conditions import (
    Conditions,
    conditions_of,
    differing,
    keys_for_path,
    mix,
    value_or_absent,
    why_not_applicable,
)
from envsnap.experiment.ddmin import ddmin
from envsnap.experiment.findings import ranked_paths
from envsnap.experiment.launch import launch, prepare
from envsnap.experiment.metric import read_metric
from envsnap.experiment.packages import InstallOptions
from envsnap.manifest.sections.base import Model

Verdict = Literal["confirmed", "not-reproduced", "noise", "no-applicable-difference"]


@dataclass(frozen=True)
class BisectOptions:
    argv: tuple[str, ...]
    work_dir: Path
    pattern: re.Pattern[str] | None = None
    metric_file: Path | None = None
    tol: float = 0.0
    max_runs: int = 64
    budget_s: float = 3600.0
    timeout_s: float = 600.0
    packages: InstallOptions | None = None
    base_env: Mapping[str, str] | None = None


class Candidate(Model):
    key: str = Field(description="Condition key (env:NAME, torch:FIELD, seed, package:NAME).")
    a: str = Field(description="The condition on side A.")
    b: str = Field(description="The condition on side B.")
    rank: int | None = Field(description="Rank of the differ's finding about it; null if none.")
    finding: str | None = Field(description="Title of that finding.")


class NotApplicable(Model):
    rank: int = Field(description="Rank of the finding.")
    path: str = Field(description="Manifest path of the difference.")
    reason: str = Field(description="Why it cannot be applied on this machine.")


class RunRecord(Model):
    index: int = Field(description="1-based run number.")
    label: str = Field(description="Which conditions: A, B, or A plus some of B's.")
    from_b: list[str] = Field(description="Candidate keys taken from B.")
    metric: float | None = Field(description="The metric read; null when none was found.")
    returncode: int | None = Field(description="Exit status; null when killed at the timeout.")
    seconds: float = Field(description="Wall time of the run.")
    reproduces: bool | None = Field(description="Whether the metric matched B's (null: A/B).")
    directory: str = Field(description="Directory holding the run's output.")


class BisectReport(Model):
    verdict: Verdict = Field(description="Outcome of the search.")
    summary: str = Field(description="One-line statement of the outcome.")
    metric_a: float | None = Field(description="Metric under A's conditions.")
    metric_b: float | None = Field(description="Metric under B's applicable conditions.")
    metric_a_repeat: float | None = Field(description="A's metric on a second run (noise check).")
    tol: float = Field(description="Absolute tolerance used to compare metrics.")
    candidates: list[Candidate] = Field(description="Applicable differences, in rank order.")
    confirmed: list[str] = Field(description="Keys that together reproduce B's metric.")
    minimal: bool = Field(description="True when no confirmed key can be dropped (1-minimal).")
    no_effect: list[str] = Field(description="Candidates shown not to be needed.")
    not_applicable: list[NotApplicable] = Field(description="Differences that were not tried.")
    runs: list[RunRecord] = Field(description="Every run, in order.")
    work_dir: str = Field(description="Where every run's output is kept.")


class _Budget(Exception):
    """The run count or the time budget is spent."""


class _Runner:
    """Runs the job for a subset of B's candidates on top of A, once per distinct subset."""

    def __init__(self, a: Conditions, b: Conditions, options: BisectOptions) -> None:
        self.a, self.b, self.options = a, b, options
        self.runs: list[RunRecord] = []
        self.started = time.monotonic()
        self.metric_b: float | None = None

    def run(self, chosen: tuple[str, ...], label: str) -> RunRecord:
        options = self.options
        if len(self.runs) >= options.max_runs:
            raise _Budget(f"--max-runs {options.max_runs} reached")
        if time.monotonic() - self.started >= options.budget_s:
            raise _Budget(f"time budget of {options.budget_s:g} s spent")
        run_dir = options.work_dir / f"run-{len(self.runs) + 1:03d}"
        plan = prepare(
            mix(self.a, self.b, chosen),
            run_dir,
            packages=options.packages,
            base_env=options.base_env if options.base_env is not None else {},
        )
        if options.metric_file is not None:
            options.metric_file.unlink(missing_ok=True)  # never read a previous run's value
        outcome = launch(options.argv, plan, run_dir, timeout_s=options.timeout_s, capture=True)
        metric = read_metric(run_dir / "stdout.txt", options.metric_file, options.pattern)
        reproduces = None if self.metric_b is None else self.close(metric, self.metric_b)
        record = RunRecord(
            index=len(self.runs) + 1,
            label=label,
            from_b=list(chosen),
            metric=metric,
            returncode=outcome.returncode,
            seconds=round(outcome.seconds, 3),
            reproduces=reproduces,
            directory=str(run_dir),
        )
        self.runs.append(record)
        return record

    def close(self, x: float | None, y: float | None) -> bool:
        if x is None or y is None:
            return False
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return abs(x - y) <= self.options.tol

    def reproduces(self, chosen: tuple[str, ...]) -> bool | None:
        try:
            record = self.run(chosen, f"A + {len(chosen)} from B")
        except _Budget:
            return None
        return bool(record.reproduces)


def _candidates(
    doc_a: dict[str, Any], doc_b: dict[str, Any], a: Conditions, b: Conditions, packages: bool
) -> tuple[list[Candidate], list[NotApplicable]]:
    differ = [k for k in differing(a, b) if packages or not k.startswith("package:")]
    ranked: dict[str, tuple[int, str]] = {}
    not_applicable: list[NotApplicable] = []
    for item in ranked_paths(doc_a, doc_b):
        keys = keys_for_path(item.path)
        hits = [key for key in keys if key in differ]
        for key in hits:
            ranked.setdefault(key, (item.rank, item.title))
        if hits:
            continue
        reason = why_not_applicable(item.path)
        packaged = [key for key in keys if key.startswith("package:")]
        if packaged and not packages:
            reason = "a package version: pass --packages to try it"
        elif keys:
            reason = (
                a.skipped.get(keys[0])
                or b.skipped.get(keys[0])
                or "nothing to apply: the applicable values are equal"
            )
        not_applicable.append(NotApplicable(rank=item.rank, path=item.path, reason=reason))
    order = sorted(differ, key=lambda k: (ranked.get(k, (10**9, ""))[0], k))
    candidates = []
    for key in order:
        like = a.values.get(key) or b.values[key]
        rank, title = ranked.get(key, (None, None))
        candidates.append(
            Candidate(
                key=key,
                a=value_or_absent(a, key, like).describe(),
                b=value_or_absent(b, key, like).describe(),
                rank=rank,
                finding=title,
            )
        )
    return candidates, not_applicable


def bisect(doc_a: dict[str, Any], doc_b: dict[str, Any], options: BisectOptions) -> BisectReport:
    """Reproduce the A/B discrepancy here, then find the differences that cause it."""
    a, b = conditions_of(doc_a), conditions_of(doc_b)
    candidates, not_applicable = _candidates(doc_a, doc_b, a, b, options.packages is not None)
    keys = tuple(c.key for c in candidates)
    runner = _Runner(a, b, options)
    report = BisectReport(
        verdict="no-applicable-difference",
        summary="no difference between A and B can be applied on this machine",
        metric_a=None,
        metric_b=None,
        metric_a_repeat=None,
        tol=options.tol,
        candidates=candidates,
        confirmed=[],
        minimal=False,
        no_effect=[],
        not_applicable=not_applicable,
        runs=runner.runs,
        work_dir=str(options.work_dir),
    )
    if not keys:
        return report
    report.runs = runner.runs  # the same list: every return below reports every run
    try:
        report.metric_a = _required(runner.run((), "A"))
        report.metric_b = runner.metric_b = _required(runner.run(keys, "B"))
        if runner.close(report.metric_a, report.metric_b):
            return _not_reproduced(report)
        report.metric_a_repeat = _required(runner.run((), "A (repeat)"))
    except _Budget as exc:
        raise EnvsnapError(f"cannot check that the discrepancy reproduces: {exc}") from None
    if not runner.close(report.metric_a, report.metric_a_repeat):
        report.verdict = "noise"
        report.summary = (
            f"does not reproduce: A's conditions gave {report.metric_a!r} and then "
            f"{report.metric_a_repeat!r}; the job varies from run to run under fixed conditions, "
            "so the A/B difference cannot be attributed to any condition"
        )
        return report
    found = ddmin(keys, runner.reproduces)
    report.verdict = "confirmed"
    report.confirmed, report.minimal = found.subset, found.minimal
    report.no_effect = [key for key in keys if key not in found.subset]
    runs = len(runner.runs)
    which = ", ".join(found.subset)
    report.summary = (
        f"confirmed: {which} turns A's metric into B's ({runs} runs for "
        f"{len(keys)} applicable differences)"
        if found.minimal
        else f"narrowed to {which} (not minimised: budget spent after {runs} runs)"
    )
    return report


def _required(record: RunRecord) -> float:
    if record.metric is None:
        status = "timed out" if record.returncode is None else f"exit {record.returncode}"
        raise EnvsnapError(
            f"the run under {record.label}'s conditions gave no metric ({status}); "
            f"see {record.directory}/stdout.txt and stderr.txt"
        )
    return record.metric


def _not_reproduced(report: BisectReport) -> BisectReport:
    report.verdict = "not-reproduced"
    report.summary = (
        f"does not reproduce: A's and B's applicable conditions both give "
        f"{report.metric_a!r} / {report.metric_b!r} here (tolerance {report.tol:g}); the "
        "discrepancy comes from conditions not applied here, or from run-to-run noise"
    )
    return report
