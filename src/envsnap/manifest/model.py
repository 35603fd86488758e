"""The manifest: a versioned, schema-validated, digest-sealed record of a run's conditions.

A manifest is written once and then only read: `load` refuses anything that is not a manifest of
a schema version this envsnap knows, with a one-line reason.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Mapping
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

from envsnap._version import __version__
from envsnap.errors import ManifestError
from envsnap.files.reader import (
    MAX_DEPTH,
    check_depth,
    parse_json,
    read_input,
    too_large,
)
from envsnap.manifest.canonical import canonical_bytes, pretty_text
from envsnap.manifest.compat import omit_unset_additions
from envsnap.manifest.freeform import free_form_paths, values_at
from envsnap.manifest.seal_check import announce, check_seal
from envsnap.manifest.sealed import SealedDocument, published_schema
from envsnap.manifest.sections import (
    CodeSection,
    CudaStackSection,
    DataSection,
    EnvSection,
    GpuSection,
    Model,
    PackagesSection,
    ParallelSection,
    PlacementSection,
    PrecisionSection,
    ProbeSection,
    PythonSection,
    SeedsSection,
    SystemSection,
    TemplatesSection,
    TokenizerSection,
    TorchSection,
)
from envsnap.manifest.sections.packages import Package
from envsnap.manifest.validation import validate_one_line

SCHEMA_VERSION = "1.0"
# Versions this release can read. A newer one is refused rather than half-understood.
KNOWN_SCHEMA_VERSIONS: tuple[str, ...] = ("1.0",)
# Manifests are small (tens to hundreds of KiB); a cap keeps a wrong path from eating memory.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024

CollectorStatus = Literal["ok", "skipped", "error"]


class CollectorRecord(Model):
    """What happened to one selected collector. There is one per selected collector."""

    status: CollectorStatus = Field(
        description="ok: the section was collected; skipped: expected absence (no GPU, not a "
        "git repository, dependency missing); error: it failed or exceeded its time limit."
    )
    reason: str | None = Field(default=None, description="Why it was skipped or failed.")
    duration_ms: float = Field(description="Wall time the collector took, in milliseconds.")


class ToolInfo(Model):
    name: Literal["envsnap"] = Field(default="envsnap", description="Producing tool.")
    version: str = Field(description="envsnap version that wrote the manifest.")
    collectors_requested: list[str] = Field(
        description="Collectors selected for this capture, in registry order."
    )
    collectors_run: list[str] = Field(
        description="Collectors that ran to completion (status ok or skipped)."
    )


class RunInfo(Model):
    argv: list[str] = Field(description="Command line of the capturing process, secrets redacted.")
    cwd: str | None = Field(description="Working directory of the capturing process.")
    label: str | None = Field(default=None, description="Free-text label given with --label.")
    pid: int | None = Field(description="Process id of the capturing process.")


class ImportedFrom(Model):
    format: str = Field(description="Source format (collect-env, wandb, mlflow).")
    source: str = Field(description="Name of the source file or directory.")
    sha256: str = Field(description="sha256 of the source bytes.")
    facts: dict[str, Any] = Field(
        default_factory=dict,
        description="Facts the source states that no section field holds (e.g. collect_env's "
        "GCC version or 'Is CUDA available'): the import's own record, never job configuration.",
    )
    sections: dict[str, Any] = Field(
        default_factory=dict,
        description="Stated values of sections the source does not state enough of to build "
        "(e.g. the torch version of a collect_env report, without the runtime flags), by section.",
    )


def _iso_datetime(value: object) -> object:
    """A date-time is ISO 8601 text in JSON (or a datetime from Python), never a number."""
    if isinstance(value, str):
        try:
            # Python 3.10's fromisoformat does not read the `Z` suffix.
            return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
        except ValueError:
            raise ValueError("not an ISO 8601 date-time") from None
    if isinstance(value, datetime):
        return value
    raise ValueError("must be an ISO 8601 date-time string")


class Manifest(SealedDocument):
    """A complete envsnap manifest. Field order here is documentation order only."""

    schema_version: str = Field(default=SCHEMA_VERSION, description="Manifest schema version.")
    tool: ToolInfo = Field(description="Which envsnap wrote this, and which collectors it ran.")
    created_at: Annotated[datetime, BeforeValidator(_iso_datetime)] = Field(
        description="Capture time, UTC, ISO 8601."
    )
    run: RunInfo = Field(description="The process that captured.")
    code: CodeSection | None = Field(default=None, description="Source tree (git).")
    python: PythonSection | None = Field(default=None, description="Interpreter.")
    packages: PackagesSection | None = Field(default=None, description="Installed packages.")
    system: SystemSection | None = Field(default=None, description="OS, CPU, memory, limits.")
    env: EnvSection | None = Field(default=None, description="Result-relevant env variables.")
    gpu: GpuSection | None = Field(default=None, description="GPUs and driver (NVML).")
    cuda_stack: CudaStackSection | None = Field(
        default=None, description="CUDA libraries and torch build, read from installed files."
    )
    torch: TorchSection | None = Field(default=None, description="Live PyTorch runtime flags.")
    precision: PrecisionSection | None = Field(
        default=None, description="Dtypes, autocast, loss scaling, optimizer."
    )
    parallel: ParallelSection | None = Field(
        default=None, description="Distributed layout and batch semantics."
    )
    data: DataSection | None = Field(default=None, description="Data digests.")
    tokenizer: TokenizerSection | None = Field(default=None, description="Tokenizer digests.")
    templates: TemplatesSection | None = Field(
        default=None, description="Prompt and chat template digests."
    )
    seeds: SeedsSection | None = Field(default=None, description="Seeds and RNG state digests.")
    placement: PlacementSection | None = Field(
        default=None,
        description="Where the job ran: container image, scheduler allocation, CPU affinity.",
    )
    probe: ProbeSection | None = Field(
        default=None,
        description="How this torch stack computes, measured: per device, the output digest, "
        "error and repeatability of a fixed suite of ops.",
    )
    collectors: dict[str, CollectorRecord] = Field(
        description="One record per selected collector: status, reason, duration."
    )
    imported_from: ImportedFrom | None = Field(
        default=None, description="Set when the manifest was converted from another tool's record."
    )
    extra: dict[str, JsonValue] = Field(
        default_factory=dict, description="Free-form values the job attached (redacted)."
    )

    def to_document(self) -> dict[str, Any]:
        """The JSON-compatible dict form, digest included."""
        document = super().to_document()
        omit_unset_additions(document)
        return document

    def canonical(self) -> bytes:
        return canonical_bytes(self.to_document())


def _version_tuple(version: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return None


def looks_like_manifest(document: object) -> bool:
    """True for a JSON object that claims to be an envsnap manifest, with or without a
    schema_version: one whose version was removed must be refused as a broken manifest, not
    read as some other tool's record."""
    if not isinstance(document, dict):
        return False
    tool = document.get("tool")
    return (
        "schema_version" in document
        or (isinstance(tool, dict) and tool.get("name") == "envsnap")
        or {"collectors", "digest"} <= document.keys()
    )


def check_schema_version(version: object, source: str) -> None:
    """Refuse versions this envsnap does not know, naming both versions."""
    if version is None:
        raise ManifestError(f"{source}: not an envsnap manifest (schema_version is missing)")
    if not isinstance(version, str):
        raise ManifestError(
            f"{source}: not a valid envsnap manifest: schema_version must be a string "
            f"such as {SCHEMA_VERSION!r}, got {type(version).__name__}"
        )
    if version in KNOWN_SCHEMA_VERSIONS:
        return
    theirs, ours = _version_tuple(version), _version_tuple(SCHEMA_VERSION)
    if theirs is not None and ours is not None and theirs > ours:
        raise ManifestError(
            f"{source}: manifest schema {version} is newer than this envsnap "
            f"({__version__}) supports ({SCHEMA_VERSION}); upgrade envsnap to read it"
        )
    raise ManifestError(
        f"{source}: unknown manifest schema version {version[:40]!r}; this envsnap reads "
        f"{', '.join(KNOWN_SCHEMA_VERSIONS)}"
    )


def read_document(
    path: str | os.PathLike[str],
    *,
    reuse: Mapping[str, dict[str, Any]] | None = None,
    check_digest: bool = True,
) -> dict[str, Any]:
    """Read a file as a JSON object, with a size cap and one-line errors.

    `reuse`: objects of a document read before, by name, to share when equal (see
    `files.reader.parse_json`); `package_index` gives them for a manifest's packages.
    `check_digest`: a sealed document edited after capture is warned about, or refused under
    `--strict` (`seal_check`); `verify` turns it off to report the mismatch itself.
    """
    data = read_input(path, "a manifest file", max_bytes=MAX_MANIFEST_BYTES, error=ManifestError)
    document = parse_document(data, os.fspath(path), reuse=reuse)
    if check_digest:
        check_seal(document, os.fspath(path))
    return document


def package_index(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A manifest document's package entries by their `name`, for `read_document(reuse=)`."""
    packages = document.get("packages")
    installed = packages.get("installed") if isinstance(packages, dict) else None
    if not isinstance(installed, dict):
        return {}
    return {
        entry["name"]: entry
        for entry in installed.values()
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    }


def parse_document(
    data: bytes, source: str, *, reuse: Mapping[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Parse bytes as a JSON object; every failure is a `ManifestError` with one line.

    The JSON is read strictly (see `files.reader.parse_json`). Depth is left to validation:
    the model bounds every field's shape except the free-form maps, which it checks itself.
    """
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestError(too_large(source, "a manifest", MAX_MANIFEST_BYTES))
    document = parse_json(
        data, source, "a manifest", error=ManifestError, max_depth=None, reuse=reuse
    )
    if not isinstance(document, dict):
        raise ManifestError(f"{source}: not an envsnap manifest (top level is not an object)")
    return document


def manifest_from_document(document: dict[str, Any], source: str) -> Manifest:
    """Validate a parsed JSON object as a manifest."""
    manifest = _validated(document, source)
    announce(source)
    return manifest


def _validated(document: dict[str, Any], source: str) -> Manifest:
    check_schema_version(document.get("schema_version"), source)
    for path in free_form_paths(Manifest):
        for value in values_at(document, path):
            check_depth(value, MAX_DEPTH, source, "a manifest", error=ManifestError)
    # Strict: a value the published schema refuses ("123" for an integer, 0 for a date, 1 for
    # a boolean) is refused here too, never coerced.
    return validate_one_line(
        Manifest,
        document,
        error=ManifestError,
        context=f"{source}: not a valid envsnap manifest",
        count_more=True,
        strict=True,
    )


def _entries_adapter(model: type[Model]) -> TypeAdapter[Any]:
    """A validator of `dict[str, model]` that builds plain dicts, not model instances.

    Its TypedDict is made from the model's own fields (types, required or not, no extra
    keys), so it accepts and refuses exactly what the model does; it only skips building a
    model object per entry, which is most of the cost for 200k packages.
    """
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        # The field's constraints (ge=, max_length=...) travel with its type.
        parts = (info.annotation, *info.metadata)
        kind = Annotated.__class_getitem__(parts) if info.metadata else info.annotation  # type: ignore[attr-defined]
        fields[name] = kind if info.is_required() else NotRequired[kind]
    entry: Any = TypedDict(model.__name__, fields)  # type: ignore[misc]
    setattr(entry, "__pydantic_config__", ConfigDict(extra="forbid", strict=True))  # noqa: B010
    return TypeAdapter(dict[str, entry])


_PACKAGE_ENTRIES = functools.cache(lambda: _entries_adapter(Package))


# Package entries are validated in slices of this many, so a 200k-package manifest never has
# all its models alive at once.
_VALIDATION_SLICE = 5_000


def check_document(
    document: dict[str, Any], source: str, *, known_valid: Collection[int] = ()
) -> None:
    """Validate a manifest document as `manifest_from_document` does, without keeping the
    model: for a large manifest, the models of every package would outweigh the document.

    Package entries whose `id()` is in `known_valid` (objects shared with a document checked
    before) are not validated twice. Raises `ManifestError` with one line.
    """
    packages = document.get("packages")
    installed = packages.get("installed") if isinstance(packages, dict) else None
    if not isinstance(packages, dict) or not isinstance(installed, dict):
        manifest_from_document(document, source)
        return
    if len(installed) <= _VALIDATION_SLICE:
        manifest_from_document(document, source)
        return
    _validated({**document, "packages": {**packages, "installed": {}}}, source)
    entries = [(k, v) for k, v in installed.items() if id(v) not in known_valid]
    adapter = _PACKAGE_ENTRIES()
    for start in range(0, len(entries), _VALIDATION_SLICE):
        try:
            adapter.validate_python(dict(entries[start : start + _VALIDATION_SLICE]), strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in ("packages", "installed", *first["loc"]))
            raise ManifestError(
                f"{source}: not a valid envsnap manifest: {where}: {first['msg']}"
            ) from None
    announce(source)


def load(path: str | os.PathLike[str]) -> Manifest:
    """Read and validate a manifest file. Raises `ManifestError` with a one-line message."""
    return manifest_from_document(read_document(path), str(path))


def schema_document() -> dict[str, Any]:
    """The JSON Schema of the manifest, as published in schemas/manifest.v1.json."""
    return published_schema(
        Manifest,
        file="manifest.v1.json",
        title="envsnap manifest",
        description=f"A record of the conditions of an ML run (schema {SCHEMA_VERSION}). "
        "Generated from envsnap's models; do not edit.",
    )


def schema_text() -> str:
    return pretty_text(schema_document())


def write_manifest(manifest: Manifest, path: str | os.PathLike[str]) -> Path:
    from envsnap.files.atomic import write_atomic

    return write_atomic(path, manifest.to_json().encode("utf-8"))
