"""`data`: digest trees of the data the job declared, and facts of dataset objects.

Sources: `[tool.envsnap.data]` (paths, named sources with versions), `--data`, and the API's
`data=` (a path, a list of paths, a dict of name -> path / dataset / {path, mode, versions}, or
a `datasets.Dataset`). Every problem is recorded on its item; the collector itself only fails
for a bug. Hashing stops at the data budget (`data.budget_s`), which the capture extends its
own deadline for.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.injob import json_digest, qualname
from envsnap.capturing.declared import parse
from envsnap.errors import ConfigError
from envsnap.manifest.records import DataItem, DataSection, DatasetInfo

if TYPE_CHECKING:
    from envsnap.capturing.declared_models import DataDeclared

_NOTHING_DECLARED = "no data declared (use --data, [tool.envsnap.data] or data=)"
_WRONG_TYPE = (
    "expected a path, a list of paths, a dict of name -> path/dataset, or a datasets.Dataset; "
    "got {}"
)


def is_dataset(obj: Any) -> bool:
    """A datasets.Dataset look-alike: has a fingerprint, or rows and features."""
    return hasattr(obj, "_fingerprint") or (hasattr(obj, "num_rows") and hasattr(obj, "features"))


def dataset_info(obj: Any) -> DatasetInfo:
    info = getattr(obj, "info", None)
    features = getattr(obj, "features", None) or {}
    described = {str(name): str(feature) for name, feature in dict(features).items()}
    to_dict = getattr(features, "to_dict", None)
    shape = to_dict() if callable(to_dict) else described
    split = getattr(obj, "split", None)
    num_rows = getattr(obj, "num_rows", None)
    version = getattr(info, "version", None)
    return DatasetInfo(
        class_name=qualname(obj),
        fingerprint=str(obj._fingerprint) if getattr(obj, "_fingerprint", None) else None,
        num_rows=int(num_rows) if isinstance(num_rows, int) else None,
        split=str(split) if split is not None else None,
        features_digest=json_digest(shape),
        features=described,
        builder_name=getattr(info, "builder_name", None),
        config_name=getattr(info, "config_name", None),
        version=str(version) if version is not None else None,
    )


def _requests(context: CaptureContext, settings: DataDeclared) -> dict[str, Any]:
    """Declared name -> what to read: DataSourceDeclared, a dataset object, or an error text."""
    from envsnap.capturing.declared_models import DataSourceDeclared

    wanted: dict[str, Any] = {}
    for path in settings.paths:
        wanted[path] = DataSourceDeclared(path=path)
    wanted.update(settings.sources)
    given = context.inputs.get("data")
    if given is None:
        return wanted
    if isinstance(given, (str, os.PathLike)) or is_dataset(given):
        given = [given]
    if isinstance(given, (list, tuple)):
        for index, value in enumerate(given):
            if isinstance(value, (str, os.PathLike)):
                wanted[os.fspath(value)] = DataSourceDeclared(path=os.fspath(value))
            elif is_dataset(value):
                split = getattr(value, "split", None)
                wanted[f"dataset:{split if split is not None else index}"] = value
            else:
                wanted[f"data[{index}]"] = _WRONG_TYPE.format(type(value).__name__)
    elif isinstance(given, dict):
        for name, value in given.items():
            if isinstance(value, (str, os.PathLike)):
                wanted[str(name)] = DataSourceDeclared(path=os.fspath(value))
            elif is_dataset(value):
                wanted[str(name)] = value
            elif isinstance(value, dict):
                try:
                    wanted[str(name)] = parse("data", {"sources": {name: value}}, "api").sources[
                        str(name)
                    ]
                except ConfigError as exc:
                    wanted[str(name)] = str(exc).removeprefix("api: ")
            else:
                wanted[str(name)] = _WRONG_TYPE.format(type(value).__name__)
    else:
        wanted["data"] = _WRONG_TYPE.format(type(given).__name__)
    return wanted


def collect(context: CaptureContext) -> DataSection:
    table = context.config.declared.get("data", {})
    if not table.get("paths") and not table.get("sources") and context.inputs.get("data") is None:
        raise CollectorUnavailable(_NOTHING_DECLARED)
    from envsnap.capturing.datahash import SAMPLE_BLOCK_BYTES

    settings: DataDeclared = parse("data", table, "config")
    wanted = _requests(context, settings)
    if not wanted:
        raise CollectorUnavailable(_NOTHING_DECLARED)
    deadline = min(time.monotonic() + settings.budget_s, context.deadline - 0.5)
    section = DataSection(other=settings.other)
    for name, request in sorted(wanted.items()):
        section.items[name] = _one(context, settings, request, deadline)
    if any(item.mode == "sample" for item in section.items.values()):
        section.sample_block_bytes = SAMPLE_BLOCK_BYTES
    return section


def _one(
    context: CaptureContext, settings: DataDeclared, request: Any, deadline: float
) -> DataItem:
    # Hashing machinery (thread pools, the digest cache) loads only when data is declared.
    from envsnap.capturing.datacache import DigestCache
    from envsnap.capturing.datahash import HashOptions, hash_path
    from envsnap.capturing.declared_models import DataSourceDeclared

    if isinstance(request, str):
        return DataItem(kind="invalid", error=request)
    if not isinstance(request, DataSourceDeclared):
        try:
            return DataItem(kind="dataset", dataset=dataset_info(request))
        except Exception as exc:  # an odd dataset object costs only its item
            return DataItem(kind="invalid", error=f"{type(exc).__name__}: {exc}"[:300])
    if request.path is None:
        return DataItem(kind="declared", versions=request.versions)
    mode = request.mode or settings.mode
    resolved = os.path.abspath(os.path.join(context.cwd, request.path))
    cache = (
        DigestCache.for_root(resolved, context.env) if settings.cache and mode != "stat" else None
    )
    options = HashOptions(
        mode=mode,
        workers=settings.workers,
        deadline=deadline,
        max_listed=settings.max_listed_files,
        cache=cache,
    )
    item = hash_path(request.path, Path(context.cwd), options)
    item.versions = request.versions
    if cache is not None:
        cache.save()
    return item


COLLECTOR = Collector(
    name="data",
    collect=collect,
    # The real limit is data.budget_s (the collector stops hashing by itself); the capture
    # extends its deadline to cover it when data is declared.
    timeout_s=24 * 3600.0,
    description="data digest trees (full, sample or stat) with Merkle roots",
)
