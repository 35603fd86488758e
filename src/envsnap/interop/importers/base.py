"""What every importer produces, and how it becomes a manifest.

An importer reads a foreign record (a collect_env report, a W&B run, an MLflow run) into an
`Imported` value: plain per-section facts plus, per section, the fields the record does not
state and why. `to_manifest` fits those facts onto the manifest's section models; what fits no
section is kept under `imported_from` (the import's own record, which a comparison treats as
bookkeeping, never as job configuration). A field the
record does not state is null with its reason in the section's `unknown`; a section the record
says nothing about is null with a `skipped` collector record that names the source, so a
comparison can say "not stated in B's collect_env report" instead of treating two unknowns as
equal. Nothing is guessed to fill a gap.
"""

from __future__ import annotations

import hashlib
import typing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envsnap._version import __version__
from envsnap.capturing.redact import DEFAULT_REDACTOR, Redactor
from envsnap.capturing.scrub import scrubbed
from envsnap.errors import ManifestError
from envsnap.files.reader import read_input
from envsnap.manifest.model import (
    MAX_MANIFEST_BYTES,
    CollectorRecord,
    ImportedFrom,
    Manifest,
    RunInfo,
    ToolInfo,
)
from envsnap.manifest.sections import SECTION_MODELS, Section

# How each format names itself in reasons: "not stated in collect_env report".
SOURCE_LABELS: dict[str, str] = {
    "collect-env": "collect_env report",
    "wandb": "W&B run metadata",
    "mlflow": "MLflow run",
}


def not_stated(fmt: str) -> str:
    """The reason recorded for a field or section the source does not state."""
    return f"not stated in {SOURCE_LABELS.get(fmt, fmt)}"


@dataclass
class Source:
    """The bytes an importer read: one file, or several files of a run directory."""

    path: Path
    files: dict[str, bytes]

    @property
    def sha256(self) -> str:
        """sha256 of the file, or over the sorted (name, sha256) pairs of a directory's files."""
        if len(self.files) == 1 and not self.path.is_dir():
            return hashlib.sha256(next(iter(self.files.values()))).hexdigest()
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(f"{name}\0{hashlib.sha256(self.files[name]).hexdigest()}\n".encode())
        return digest.hexdigest()


@dataclass
class Imported:
    """Facts read from a foreign record, before they are fitted onto the section models."""

    format: str
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    unknown: dict[str, dict[str, str]] = field(default_factory=dict)
    # Facts with no field in any section (e.g. collect_env's GCC version), kept in `extra`.
    facts: dict[str, Any] = field(default_factory=dict)
    started_at: datetime | None = None
    argv: list[str] = field(default_factory=list)
    cwd: str | None = None
    # Why a section is null when it is not "not stated" (e.g. the file stating it was not read).
    section_reasons: dict[str, str] = field(default_factory=dict)

    def put(self, section: str, name: str, value: Any) -> None:
        """Record a stated value (None when the source states the field does not apply)."""
        self.sections.setdefault(section, {})[name] = value

    def put_unknown(self, section: str, name: str, reason: str | None = None) -> None:
        """Record a field as unknown (null), with why."""
        self.put(section, name, None)
        self.note_unknown(section, name, reason)

    def put_unknown_container(self) -> None:
        """No record format states container or cgroup limits: all of them are unknown."""
        self.put(
            "system",
            "container",
            dict.fromkeys(("runtime", "cgroup_version", "cpu_limit", "memory_limit_bytes")),
        )
        self.note_unknown("system", "container")

    def note_unknown(self, section: str, name: str, reason: str | None = None) -> None:
        """List a (possibly nested) field as unknown without touching any value.

        The first reason given for a field is kept: it is the most specific one.
        """
        self.sections.setdefault(section, {})
        self.unknown.setdefault(section, {}).setdefault(name, reason or not_stated(self.format))


def read_bytes(path: Path, what: str) -> bytes:
    """Read a record file with the manifest size cap, as one-line `ManifestError`s."""
    return read_input(path, what, max_bytes=MAX_MANIFEST_BYTES, error=ManifestError)


def decode_text(data: bytes, source: str, what: str) -> str:
    """Decode UTF-8 text, refusing empty and binary input with one line."""
    if not data.strip():
        raise ManifestError(f"{source}: file is empty")
    if b"\0" in data[:8192]:
        raise ManifestError(f"{source}: binary data, not {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ManifestError(f"{source}: not UTF-8 text (binary data?), not {what}") from None


def _empty_container(annotation: Any) -> Any:
    """[] or {} when a required field is a list or dict that cannot be null, else None."""
    origin = typing.get_origin(annotation)
    if origin is list:
        return []
    if origin is dict:
        return {}
    return None


def fit_section(
    model: type[Section], values: dict[str, Any], unknown: dict[str, str], reason: str
) -> Section | list[str]:
    """Build a section from the stated values, or return the fields the model cannot hold.

    Required fields the source does not state become null (or an empty list/dict, listed in
    `unknown` all the same). When the model demands a value the source does not state, the
    section is not built: the names of those fields come back instead.
    """
    data = dict(values)
    gaps = dict(unknown)
    for name, info in model.model_fields.items():
        if name == "unknown" or name in data or not info.is_required():
            continue
        data[name] = _empty_container(info.annotation)
        gaps.setdefault(name, reason)
    try:
        return model.model_validate({**data, "unknown": dict(sorted(gaps.items()))})
    except ValidationError as exc:
        return sorted({".".join(str(p) for p in error["loc"]) for error in exc.errors()})


def _stated(values: dict[str, Any]) -> dict[str, Any]:
    """Stated (non-null) values, nested dicts included, for `extra` when no section holds them."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        kept = _stated(value) if isinstance(value, dict) else value
        if kept not in (None, {}, []):
            out[key] = kept
    return out


def to_manifest(imported: Imported, source: Source, redactor: Redactor | None = None) -> Manifest:
    """Fit imported facts onto the manifest models and seal the result.

    A section the record says nothing about is null, with a `skipped` record naming the source.
    """
    fmt = imported.format
    reason = not_stated(fmt)
    built: dict[str, Section] = {}
    records: dict[str, CollectorRecord] = {}
    unplaced: dict[str, Any] = {}
    for name, model in SECTION_MODELS.items():
        values = imported.sections.get(name)
        if values is None:
            why = imported.section_reasons.get(name, reason)
            records[name] = CollectorRecord(status="skipped", reason=why, duration_ms=0.0)
            continue
        result = fit_section(model, values, imported.unknown.get(name, {}), reason)
        if isinstance(result, Section):
            built[name] = result
            records[name] = CollectorRecord(
                status="ok", reason=f"imported from {SOURCE_LABELS[fmt]}", duration_ms=0.0
            )
            continue
        # The record states some of this section, but the section model needs values the
        # record does not give. Keep what it states in `extra` rather than invent the rest.
        records[name] = CollectorRecord(
            status="skipped",
            reason=f"{reason}: {', '.join(result)} (stated values are kept in "
            f"imported_from.sections.{name})",
            duration_ms=0.0,
        )
        stated = _stated(values)
        if stated:
            unplaced[name] = stated
    manifest = Manifest(
        tool=ToolInfo(
            version=__version__,
            collectors_requested=list(SECTION_MODELS),
            collectors_run=[name for name in SECTION_MODELS if name in built],
        ),
        created_at=imported.started_at or datetime.now(timezone.utc),
        run=RunInfo(
            argv=imported.argv,
            cwd=imported.cwd or None,
            label=f"imported from {SOURCE_LABELS[fmt]} {source.path.name}",
            pid=None,
        ),
        collectors=records,
        imported_from=ImportedFrom(
            format=fmt,
            source=source.path.name,
            sha256=source.sha256,
            facts=imported.facts,
            sections=unplaced,
        ),
        **built,
    )
    # Imported records are scrubbed like captures: a token may sit in any field of the source.
    return scrubbed(manifest, redactor or DEFAULT_REDACTOR).sealed()
