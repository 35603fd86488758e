"""`python`: the interpreter and the kind of environment it runs in."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.manifest.records import EnvironmentKind, PythonSection


def _environment_kind(prefix: Path, in_venv: bool) -> EnvironmentKind:
    if (prefix / "conda-meta").is_dir():
        return "conda"
    if not in_venv:
        return "system"
    try:
        cfg = (prefix / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "venv"
    keys = {line.partition("=")[0].strip().lower() for line in cfg.splitlines()}
    if "uv" in keys:
        return "uv"
    if "virtualenv" in keys:
        return "virtualenv"
    return "venv"


def collect(context: CaptureContext) -> PythonSection:
    prefix = Path(sys.prefix)
    in_venv = sys.prefix != sys.base_prefix
    kind = _environment_kind(prefix, in_venv)
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return PythonSection(
        version=platform.python_version(),
        implementation=platform.python_implementation(),
        compiler=platform.python_compiler(),
        executable=sys.executable,
        prefix=sys.prefix,
        base_prefix=sys.base_prefix,
        environment=kind,
        in_venv=in_venv,
        conda_env=context.env.get("CONDA_DEFAULT_ENV") or (sys.prefix if kind == "conda" else None),
        hash_randomization=bool(sys.flags.hash_randomization),
        gil_disabled=(not is_gil_enabled()) if callable(is_gil_enabled) else None,
    )


COLLECTOR = Collector(name="python", collect=collect, timeout_s=2.0, description="interpreter")
