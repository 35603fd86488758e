"""The lints: each reads a manifest document and yields `Hit`s for rules of the check catalog.

A lint says nothing when the section it needs is missing (the `section-missing` lint covers
that), and says `info` when a fact it needs is unknown, so a finding above `info` is always
backed by a recorded value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from envsnap.diff.check.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, get, version_of
from envsnap.diff.report import Severity
from envsnap.diff.versions import within
from envsnap.manifest.sections import SECTION_MODELS

Doc = dict[str, Any]
INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")
# Sections a job fills from inside the process; `envsnap check` run from outside cannot see them.
IN_JOB_SECTIONS = ("seeds", "precision", "parallel", "data", "tokenizer", "templates")


@dataclass(frozen=True)
class Subject:
    """What is being checked: the document, and whether it was captured from outside the job."""

    doc: Doc
    live: bool = False


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cuda_in_use(doc: Doc) -> bool | None:
    """True when the run had CUDA GPUs, False when it could not have, None when unknown."""
    if get(doc, "torch.cuda_initialized") is True:
        return True
    count = _int(get(doc, "gpu.device_count"))
    if count is not None:
        return count > 0
    if get(doc, "torch.cuda_built") is False or get(doc, "cuda_stack.torch_build") == "cpu":
        return False
    return None


def determinism_asked(doc: Doc) -> bool:
    return bool(
        get(doc, "seeds.level") == "deterministic"
        or get(doc, "torch.deterministic.algorithms")
        or get(doc, "torch.cudnn.deterministic")
    )


def env_value(doc: Doc, name: str) -> str | None:
    variables = get(doc, "env.variables")
    value = variables.get(name) if isinstance(variables, dict) else None
    return value if isinstance(value, str) else None


# --- randomness ----------------------------------------------------------------------------
def no_seed(subject: Subject) -> Iterator[Hit]:
    seeds = subject.doc.get("seeds")
    if not isinstance(seeds, dict) or seeds.get("master_seed") is not None:
        return
    if subject.live:
        yield Hit(
            "check.no-seed",
            "seeds.master_seed",
            title="seeds are unknown from outside the job: call envsnap.capture(seeds=...) in it",
            severity=INFO,
        )
        return
    observed = seeds.get("torch_initial_seed")
    if observed is None:
        yield Hit("check.no-seed", "seeds.master_seed")
        return
    yield Hit(
        "check.no-seed",
        "seeds.torch_initial_seed",
        a=observed,
        title=f"no seed declared: torch's initial seed {observed} was observed, but whether the "
        "job chose it, and the python and numpy seeds, are not recorded",
        severity=("medium", "medium", "low"),
    )


def pythonhashseed(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    if not isinstance(doc.get("seeds"), dict) and not isinstance(doc.get("env"), dict):
        return
    value = get(doc, "seeds.pythonhashseed") or env_value(doc, "PYTHONHASHSEED")
    if value is None or value == "random":
        yield Hit("check.pythonhashseed", "seeds.pythonhashseed", a=value)


def determinism_warnings(subject: Subject) -> Iterator[Hit]:
    warnings = get(subject.doc, "seeds.warnings")
    for message in warnings if isinstance(warnings, list) else []:
        yield Hit("check.determinism-warning", "seeds.warnings", a=message, title=str(message))


def dataloader_workers(subject: Subject) -> Iterator[Hit]:
    loader = get(subject.doc, "parallel.dataloader")
    if not isinstance(loader, dict):
        return
    workers = _int(loader.get("num_workers"))
    if workers and loader.get("generator_seed") is None and loader.get("worker_init_fn") is None:
        yield Hit(
            "check.dataloader-worker-seeding",
            "parallel.dataloader",
            a=workers,
            title=f"DataLoader with {workers} workers and no generator or worker_init_fn",
        )


# --- algorithms and precision --------------------------------------------------------------
def cudnn_benchmark(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    if get(doc, "torch.cudnn.benchmark") is not True or not determinism_asked(doc):
        return
    cuda = cuda_in_use(doc)
    if cuda is False:
        return  # cuDNN is never called without CUDA
    yield Hit(
        "check.cudnn-benchmark",
        "torch.cudnn.benchmark",
        a=True,
        severity=None if cuda else INFO,
        title=None
        if cuda
        else "cudnn.benchmark is on although determinism was asked for "
        "(whether the run used CUDA is unknown)",
    )


def not_deterministic(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    if not isinstance(doc.get("torch"), dict) or determinism_asked(doc):
        return
    if cuda_in_use(doc):
        yield Hit("check.not-deterministic", "torch.deterministic.algorithms", a=False)


def probe_repeats(subject: Subject) -> Iterator[Hit]:
    """An op the probe ran twice with other bits: nondeterminism measured, not inferred."""
    devices = get(subject.doc, "probe.devices")
    for device, run in sorted(devices.items()) if isinstance(devices, dict) else ():
        ops = run.get("ops") if isinstance(run, dict) else None
        for name, op in sorted(ops.items()) if isinstance(ops, dict) else ():
            if isinstance(op, dict) and op.get("repeat_equal") is False:
                family = str(op.get("family") or name)
                yield Hit(
                    "check.probe-nondeterministic",
                    f"probe.devices.{device}.ops.{name}.repeat_equal",
                    a=False,
                    title=f"the numerics probe measured nondeterminism: {name} ({family}) on "
                    f"{device} gave other bits when repeated",
                )


def declared_device(subject: Subject) -> Iterator[Hit]:
    """A declared device the capture contradicts: torch could not use CUDA, or the model's
    parameters were elsewhere (at info: a job often captures before `model.to(device)`)."""
    doc = subject.doc
    if get(doc, "precision.sources.device") is None:
        return
    declared = str(get(doc, "precision.device") or "")
    kind = declared.split(":", 1)[0]
    params = get(doc, "precision.params_device")
    if kind == "cuda" and get(doc, "torch.cuda_available") is False:
        yield Hit(
            "check.declared-device",
            "precision.device",
            a=declared,
            title=f"the job declared device {declared}, but torch.cuda.is_available() was False",
        )
    elif isinstance(params, str) and params != kind:
        yield Hit(
            "check.declared-device",
            "precision.params_device",
            a=params,
            severity=INFO,
            title=f"the job declared device {declared}; its model's parameters were on {params} "
            "at capture",
        )


def cublas_workspace(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    if get(doc, "torch.deterministic.algorithms") is not True:
        return
    cuda = cuda_in_use(doc)
    if cuda is False:
        return
    value = env_value(doc, "CUBLAS_WORKSPACE_CONFIG")
    if value is None and not isinstance(doc.get("env"), dict):
        value = get(doc, "seeds.flags.cublas_workspace_config")
        if value is None:
            yield Hit(
                "check.cublas-workspace",
                "env.variables.CUBLAS_WORKSPACE_CONFIG",
                title="CUBLAS_WORKSPACE_CONFIG is unknown (the env section was not captured)",
                severity=INFO,
            )
            return
    if value is None:
        yield Hit(
            "check.cublas-workspace",
            "env.variables.CUBLAS_WORKSPACE_CONFIG",
            severity=None if cuda else INFO,
            title=None
            if cuda
            else "deterministic algorithms without CUBLAS_WORKSPACE_CONFIG "
            "(whether the run used CUDA is unknown)",
        )


def tf32(subject: Subject) -> Iterator[Hit]:
    effective = get(subject.doc, "torch.effective")
    if not isinstance(effective, dict):
        return
    devices = ", ".join(str(d) for d in effective.get("devices") or []) or "the GPU"
    for family, label in (("matmul_fp32", "matmuls"), ("conv_fp32", "convolutions")):
        state = get(effective, f"{family}.tf32")
        reason = get(effective, f"{family}.reason")
        path = f"torch.effective.{family}.tf32"
        if state == "yes":
            yield Hit(
                "check.tf32",
                path,
                a=reason,
                title=f"fp32 {label} run on TF32 tensor cores on {devices}",
            )
        elif state == "unknown" and cuda_in_use(subject.doc) is not False:
            yield Hit(
                "check.tf32",
                path,
                a=reason,
                title=f"whether fp32 {label} run on TF32 is unknown: {reason}",
                severity=INFO,
            )


# --- code, data, stack ---------------------------------------------------------------------
def code_state(subject: Subject) -> Iterator[Hit]:
    """Uncommitted edits to tracked files (`dirty`, the patch size) and untracked files, apart.

    Older manifests set `dirty` for untracked files alone; their empty patch (diff_bytes 0)
    keeps such a tree out of check.dirty-tree.
    """
    code = subject.doc.get("code")
    if not isinstance(code, dict):
        return
    diff_bytes = _int(code.get("diff_bytes"))
    if code.get("dirty") and (diff_bytes or 0) > 0:
        yield Hit(
            "check.dirty-tree",
            "code.dirty",
            a=code.get("diff_sha256"),
            title=f"uncommitted changes to tracked files ({code.get('diff_bytes')} bytes of diff)",
        )
    elif code.get("dirty") and diff_bytes is None:
        yield Hit(
            "check.dirty-tree",
            "code.dirty",
            title="tracked files had uncommitted changes; the size of the change is unknown",
            severity=INFO,
        )
    untracked = _int(code.get("untracked_count")) or 0
    if untracked:
        yield Hit(
            "check.untracked-files",
            "code.untracked_count",
            a=untracked,
            title=f"{untracked} untracked file(s) in the source tree",
        )


def data_digests(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    items = get(doc, "data.items")
    items = items if isinstance(items, dict) else {}
    if isinstance(get(doc, "parallel.dataloader"), dict) and not items:
        dataset = get(doc, "parallel.dataloader.dataset_class")
        yield Hit(
            "check.data-no-digest",
            "data.items",
            a=dataset,
            title=f"a DataLoader{f' over {dataset}' if dataset else ''} was used but no data "
            "digest was recorded",
        )
    for name, item in sorted(items.items()):
        if not isinstance(item, dict) or item.get("root") is not None:
            continue
        kind, versions = item.get("kind"), item.get("versions") or {}
        if kind == "declared" and versions:
            yield Hit(
                "check.data-no-digest",
                f"data.items.{name}.root",
                a=versions,
                title=f"data item {name!r} is identified by version only, not by a digest",
                severity=("medium", "low", "low"),
            )
        else:
            why = item.get("error") or f"kind {kind}"
            yield Hit(
                "check.data-no-digest",
                f"data.items.{name}.root",
                a=kind,
                title=f"data item {name!r} has no digest ({why})",
            )


def grad_accum_transformers(subject: Subject) -> Iterator[Hit]:
    doc = subject.doc
    version = version_of(doc, "transformers")
    if not within(version, None, "4.46"):
        return
    steps = _int(get(doc, "parallel.grad_accum_steps"))
    if steps is not None and steps > 1:
        yield Hit(
            "check.ga-transformers",
            "packages.installed.transformers.version",
            a=version,
            title=f"gradient accumulation {steps} with transformers {version} (< 4.46)",
        )
    elif steps is None:
        yield Hit(
            "check.ga-transformers",
            "parallel.grad_accum_steps",
            a=version,
            title=f"transformers {version} (< 4.46): gradient accumulation steps unknown; "
            "with accumulation > 1 its loss normalisation is wrong",
            severity=INFO,
        )


def lock_file(subject: Subject) -> Iterator[Hit]:
    packages = subject.doc.get("packages")
    if isinstance(packages, dict) and not packages.get("lock_files"):
        yield Hit("check.no-lock-file", "packages.lock_files", a=packages.get("project_root"))


def sections_missing(subject: Subject) -> Iterator[Hit]:
    records = subject.doc.get("collectors")
    if not isinstance(records, dict):
        return
    for name, record in sorted(records.items()):
        if not isinstance(record, dict) or record.get("status") == "ok":
            continue
        status, reason = record.get("status"), record.get("reason") or "no reason given"
        expected = status == "skipped" or (subject.live and name in IN_JOB_SECTIONS)
        yield Hit(
            "check.section-missing",
            f"collectors.{name}",
            a=status,
            title=f"section {name} not captured ({status}: {reason})",
            severity=INFO if expected else None,
        )
    for name in SECTION_MODELS:
        if name not in records:
            yield Hit(
                "check.section-missing",
                f"collectors.{name}",
                title=f"section {name} was not requested in this capture",
                severity=INFO,
            )


def _flags_of_the_job(
    lint: Callable[[Subject], Iterator[Hit]],
) -> Callable[[Subject], Iterator[Hit]]:
    """Torch flags that envsnap read in its own process (`capture --torch`, `check` without a
    file) are torch's defaults there, not the job's settings: report them as unknown (info)."""

    def checked(subject: Subject) -> Iterator[Hit]:
        from_job = get(subject.doc, "torch.imported_by") != "envsnap"
        for hit in lint(subject):
            if from_job or hit.severity == INFO:
                yield hit
            else:
                title = hit.title or RULES_BY_ID[hit.rule].title
                yield replace(
                    hit,
                    severity=INFO,
                    title=f"{title} (torch flags read outside the job: unknown for the job)",
                )

    checked.__name__ = lint.__name__
    return checked


LINTS: tuple[Callable[[Subject], Iterator[Hit]], ...] = (
    no_seed,
    pythonhashseed,
    determinism_warnings,
    dataloader_workers,
    _flags_of_the_job(cudnn_benchmark),
    _flags_of_the_job(not_deterministic),
    probe_repeats,
    declared_device,
    _flags_of_the_job(cublas_workspace),
    _flags_of_the_job(tf32),
    code_state,
    data_digests,
    grad_accum_transformers,
    lock_file,
    sections_missing,
)
