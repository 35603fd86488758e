"""The in-job API: capture from inside a training script without ever breaking it.

Live objects (model, optimizer, data loader...) reach the collectors through
`CaptureContext.inputs`; nothing here raises into the training loop. A failure of the whole
capture still returns a manifest, whose `collectors.capture` record says what went wrong.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from envsnap.manifest.model import CollectorRecord, Manifest, RunInfo, ToolInfo

if TYPE_CHECKING:
    from envsnap.capturing.config import CaptureConfig

logger = logging.getLogger("envsnap")


def capture(
    path: str | os.PathLike[str] | None = None,
    *,
    model: Any = None,
    optimizer: Any = None,
    scheduler: Any = None,
    scaler: Any = None,
    dataloader: Any = None,
    data: Any = None,
    tokenizer: Any = None,
    templates: Any = None,
    seeds: Any = None,
    parallel: dict[str, Any] | None = None,
    precision: dict[str, Any] | None = None,
    label: str | None = None,
    extra: dict[str, Any] | None = None,
    only: list[str] | None = None,
    skip: list[str] | None = None,
    budget_s: float | None = None,
    probe: bool | None = None,
    **unknown: Any,
) -> Manifest:
    """Capture this process and the job's objects; write atomically to `path` when given.

    `dataloader`: a DataLoader, or a dict of name -> DataLoader (the one named "train", else
    the first, is the training loader; the others, e.g. "eval", are recorded by name).
    `data`: a path, a list of paths, a dict of name -> path / datasets.Dataset /
    {"path", "mode", "versions"}, or a dataset. `tokenizer`: a directory or a tokenizer
    object. `templates`: a list of paths, or a dict of name -> Path (file) or str (text).
    `parallel` / `precision`: declared fields (e.g. {"grad_accum_steps": 8,
    "loss_normalization": "per_token_mean"}). `probe`: run the numerics probe (default: when
    the job imported torch; False leaves it out). Never raises: problems are recorded in the
    manifest and logged on the "envsnap" logger; only a misspelt keyword raises (`TypeError`),
    since that is a bug in the calling script, not a problem of the capture.
    """
    if unknown:
        raise unknown_keyword(sorted(unknown)[0])
    job_modules = _job_modules()  # before the capture imports anything of its own
    inputs = {
        name: value
        for name, value in {
            "model": model,
            "optimizer": optimizer,
            "scheduler": scheduler,
            "scaler": scaler,
            "dataloader": dataloader,
            "data": data,
            "tokenizer": tokenizer,
            "templates": templates,
            "seeds": seeds,
            "parallel": parallel,
            "precision": precision,
        }.items()
        if value is not None
    }
    started = time.perf_counter()
    try:
        from envsnap.capturing.run import capture_process

        config, extra = _job_config(budget_s, extra)
        if probe is not None:
            config = config.with_overrides(probe=probe)
        manifest = capture_process(
            config=config,
            only=only,
            skip=skip,
            label=label,
            inputs=inputs,
            extra=extra,
            in_job=True,
            job_modules=job_modules,
        )
    except Exception as exc:
        logger.warning("envsnap: capture failed: %s", exc)
        manifest = _failed(exc, label, started)
    if path is not None:
        try:
            from envsnap.manifest.model import write_manifest

            write_manifest(manifest, path)
        except OSError as exc:
            logger.warning("envsnap: could not write %s: %s", path, exc)
    return manifest


def _job_modules() -> frozenset[str]:
    """The top-level modules the job has loaded that a distribution can own: loaded from a
    file or a package directory, outside the standard library, and not the script itself."""
    stdlib = os.path.dirname(os.__file__) + os.sep
    found: set[str] = set()
    for name, module in list(sys.modules.items()):
        if "." in name or name in ("__main__", "__mp_main__") or name in sys.stdlib_module_names:
            continue
        where = getattr(module, "__file__", None)
        if isinstance(where, str):
            # _sysconfigdata_* and kin: the standard library's own files, not a distribution's.
            if where.startswith(stdlib) and "-packages" + os.sep not in where:
                continue
            found.add(name)
        elif getattr(module, "__path__", None):
            found.add(name)  # a namespace package (google, nvidia)
    return frozenset(found)


def unknown_keyword(name: str) -> TypeError:
    """The error for a keyword `capture` does not take, naming the closest one it does."""
    import difflib
    import inspect

    valid = [
        parameter.name
        for parameter in inspect.signature(capture).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; valid keywords: {', '.join(valid)}"
    return TypeError(f"envsnap.capture() got an unexpected keyword argument {name!r}{hint}")


def _job_config(
    budget_s: float | None, extra: dict[str, Any] | None
) -> tuple[CaptureConfig, dict[str, Any] | None]:
    """The job's capture config, and `extra` with the config error when there is one.

    A typo in the config file must not cost the job its manifest: the capture then runs with
    the defaults and the manifest says why.
    """
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.config import CaptureConfig, discover_config
    from envsnap.errors import ConfigError

    try:
        config = discover_config(working_directory())
    except ConfigError as exc:
        logger.warning("envsnap: %s; capturing with the default configuration", exc)
        config = CaptureConfig()
        extra = {**(extra or {}), "config_error": str(exc)}
    if budget_s is not None:
        config = config.with_overrides(budget_s=budget_s)
    return config, extra


def load(path: str | os.PathLike[str]) -> Manifest:
    """Read and validate a manifest file (raises `envsnap.errors.ManifestError`)."""
    from envsnap.manifest.model import load as _load

    return _load(path)


def _failed(exc: Exception, label: str | None, started: float) -> Manifest:
    from envsnap._version import __version__
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.redact import DEFAULT_REDACTOR

    return Manifest(
        tool=ToolInfo(version=__version__, collectors_requested=[], collectors_run=[]),
        created_at=datetime.now(timezone.utc),
        run=RunInfo(
            argv=[],
            cwd=str(working_directory()),
            label=DEFAULT_REDACTOR.redact_text(label) if label else label,
            pid=os.getpid(),
        ),
        collectors={
            "capture": CollectorRecord(
                status="error",
                reason=DEFAULT_REDACTOR.redact_text(f"{type(exc).__name__}: {exc}")[:500],
                duration_ms=round((time.perf_counter() - started) * 1000, 3),
            )
        },
    ).sealed()
