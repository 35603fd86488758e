"""`templates`: digests of the prompt and chat templates a job used.

From `--template PATH`, `[tool.envsnap.templates]` (paths, or files = {name = path}) and the
API's `templates=`: a list of paths, or a dict of name -> path (a `Path` object) or template
text (a `str`). A missing or unreadable file is recorded on its entry.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.manifest.hashing import sha256_file
from envsnap.manifest.records import TemplateEntry, TemplatesSection


def _file(base: Path, path: str) -> TemplateEntry:
    entry = TemplateEntry(kind="file", path=path)
    target = Path(base, path)
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "is a directory", path)
        entry.bytes = target.stat().st_size
        entry.digest = "sha256:" + sha256_file(target)
    except OSError as exc:
        entry.error = exc.strerror or type(exc).__name__
    return entry


def _text(text: str) -> TemplateEntry:
    data = text.encode("utf-8", "surrogatepass")
    return TemplateEntry(
        kind="text", digest="sha256:" + hashlib.sha256(data).hexdigest(), bytes=len(data)
    )


def _wrong(value: Any) -> TemplateEntry:
    return TemplateEntry(
        kind="text", error=f"expected a path or template text, got {type(value).__name__}"
    )


def collect(context: CaptureContext) -> TemplatesSection:
    # Config tables were validated when the config was loaded.
    declared = context.config.declared.get("templates", {})
    entries: dict[str, TemplateEntry] = {}
    for path in declared.get("paths", []):
        entries[path] = _file(context.cwd, path)
    for name, path in declared.get("files", {}).items():
        entries[name] = _file(context.cwd, path)
    given = context.inputs.get("templates")
    if isinstance(given, (str, os.PathLike)):
        given = [given]
    if isinstance(given, (list, tuple)):
        for index, value in enumerate(given):
            if isinstance(value, (str, os.PathLike)):
                entries[os.fspath(value)] = _file(context.cwd, os.fspath(value))
            else:
                entries[f"templates[{index}]"] = _wrong(value)
    elif isinstance(given, dict):
        for name, value in given.items():
            if isinstance(value, os.PathLike):
                entries[str(name)] = _file(context.cwd, os.fspath(value))
            elif isinstance(value, str):
                entries[str(name)] = _text(value)
            else:
                entries[str(name)] = _wrong(value)
    elif given is not None:
        entries["templates"] = _wrong(given)
    if not entries:
        raise CollectorUnavailable("no templates declared (use --template or templates=)")
    return TemplatesSection(templates=dict(sorted(entries.items())))


COLLECTOR = Collector(
    name="templates", collect=collect, timeout_s=5.0, description="prompt/chat template digests"
)
