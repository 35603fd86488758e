"""Helpers shared by the in-job collectors: declared values, object names, JSON-safe values.

These collectors read objects the job handed to `envsnap.capture` (through
`CaptureContext.inputs`) and values it declared in config, `--set` or keyword dicts. They use
torch only when the job already imported it, and read attributes by duck typing.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.declared import normalize
from envsnap.errors import ConfigError
from envsnap.manifest.canonical import DIGEST_PREFIX, canonical_bytes


def loaded_torch(context: CaptureContext) -> Any:
    """torch if the job imported it; never one envsnap imported (see CaptureContext.torch)."""
    return context.job_torch()


def qualname(obj: Any) -> str:
    """`module.QualName` of an object's class (or of a class, or a function)."""
    target = (
        obj
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__qualname__"))
        else type(obj)
    )
    module = getattr(target, "__module__", None) or "?"
    return f"{module}.{getattr(target, '__qualname__', type(target).__name__)}"


def json_digest(value: Any) -> str:
    """'sha256:<hex>' of a JSON value's canonical bytes."""
    return DIGEST_PREFIX + hashlib.sha256(canonical_bytes(value)).hexdigest()


def dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def json_safe(value: Any, depth: int = 0) -> Any:
    """A JSON value for a hyperparameter: tensors become numbers, tuples lists, others text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth < 4 and isinstance(value, (list, tuple)):
        return [json_safe(item, depth + 1) for item in value]
    if depth < 4 and isinstance(value, dict):
        return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
    numel = getattr(value, "numel", None)
    if callable(numel) and hasattr(value, "item"):
        try:
            if numel() == 1:
                return json_safe(value.item(), depth + 1)
        except Exception:  # any tensor oddity: fall back to the type name
            pass
    return f"<{type(value).__name__}>"


def declared_values(
    context: CaptureContext, section: str
) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Declared values of a section: config (file and --set) overlaid by the API's dict.

    Returns the declared fields' values (validated: config tables when they were loaded, API
    values one by one here), field -> source ('config' or 'api'), and field -> problem for API
    values that were rejected (recorded in the section's `unknown`, never raised). Fields not
    declared are left out: the section record fills in their defaults.
    """
    values: dict[str, Any] = dict(context.config.declared.get(section, {}))
    sources = dict.fromkeys(values, "config")
    problems: dict[str, str] = {}
    given = context.inputs.get(section)
    if given is None:
        return values, sources, problems
    if not isinstance(given, dict):
        problems[section] = f"expected a dict of declared fields, got {type(given).__name__}"
        return values, sources, problems
    for key, raw in given.items():
        # precision={"amp_dtype": torch.bfloat16} is the natural spelling in a job.
        is_dtype = type(raw).__name__ == "dtype" and type(raw).__module__ == "torch"
        value = dtype_name(raw) if is_dtype else raw
        try:
            clean = normalize(section, {str(key): value}, "api")
        except ConfigError as exc:
            problems[str(key)] = str(exc).removeprefix("api: ")
            continue
        values.update(clean)
        sources.update(dict.fromkeys(clean, "api"))
    return values, sources, problems
