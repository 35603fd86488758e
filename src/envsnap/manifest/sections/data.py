"""The `data` section: what data the job read, as digest trees with Merkle roots.

Items are keyed by the name the job gave (or the path as given), and files inside an item by
their path relative to it, so the differ can name exactly which files changed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from envsnap.manifest.sections.base import Model, Section

HashMode = Literal["full", "sample", "stat"]
ItemKind = Literal["file", "directory", "dataset", "declared", "missing", "invalid"]


class FileEntry(Model):
    """One file inside a data item."""

    size: int | None = Field(default=None, description="Size in bytes.")
    digest: str | None = Field(
        default=None,
        description="'sha256:<hex>' of every byte (full mode, and sample mode for files of at "
        "most three blocks), 'sample:<hex>' of size + head/middle/tail blocks (sample mode), "
        "null in stat mode or when the file could not be read.",
    )
    mtime_ns: int | None = Field(
        default=None, description="Modification time in ns; recorded in stat mode only."
    )
    error: str | None = Field(default=None, description="Why the file could not be hashed.")
    unstable: bool = Field(
        default=False, description="The file changed (size or mtime) while it was being hashed."
    )


class DatasetInfo(Model):
    """A datasets.Dataset (or look-alike) object, read by duck typing."""

    class_name: str = Field(description="Qualified class name of the object.")
    fingerprint: str | None = Field(default=None, description="The dataset's _fingerprint.")
    num_rows: int | None = Field(default=None, description="Number of rows.")
    split: str | None = Field(default=None, description="Split name (train, validation...).")
    features_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the features description."
    )
    features: dict[str, str] = Field(
        default_factory=dict, description="Column name -> feature type, as text."
    )
    builder_name: str | None = Field(default=None, description="Builder / dataset name.")
    config_name: str | None = Field(default=None, description="Dataset configuration name.")
    version: str | None = Field(default=None, description="Dataset version string.")


class DataItem(Model):
    """One declared data source: a file, a directory, a dataset object or a bare declaration."""

    kind: ItemKind = Field(description="What the item turned out to be.")
    path: str | None = Field(default=None, description="The path as declared.")
    resolved: str | None = Field(default=None, description="Absolute path that was read.")
    mode: HashMode | None = Field(default=None, description="Hashing mode: full, sample or stat.")
    file_count: int = Field(default=0, description="Number of regular files found.")
    total_bytes: int = Field(default=0, description="Sum of the file sizes.")
    root: str | None = Field(
        default=None,
        description="Merkle root over the sorted tree of (name, kind, digest); equal roots mean "
        "equal trees. For a single file, its own digest.",
    )
    files: dict[str, FileEntry] = Field(
        default_factory=dict,
        description="Files keyed by POSIX path relative to the item (non-UTF-8 bytes shown as "
        "\\x escapes); capped at max_listed_files.",
    )
    dirs: dict[str, str] = Field(
        default_factory=dict,
        description="Merkle digest of every sub-directory, keyed by relative path ('.' is the "
        "item itself); capped like files.",
    )
    files_truncated: bool = Field(
        default=False, description="More files exist than were listed; the root covers all."
    )
    unstable: bool = Field(
        default=False, description="Some file changed while it was being hashed."
    )
    versions: dict[str, str] = Field(
        default_factory=dict,
        description="Declared versions: hf_repo, hf_revision, dvc_md5, dvc_rev, s3_version_id, "
        "gcs_generation, version... any string.",
    )
    dataset: DatasetInfo | None = Field(default=None, description="For dataset objects.")
    error: str | None = Field(
        default=None, description="Why the item (or some of its files) could not be hashed."
    )


class DataSection(Section):
    """Data sources the job declared, with digests."""

    items: dict[str, DataItem] = Field(
        default_factory=dict, description="Data items keyed by declared name or path."
    )
    hash_algorithm: str = Field(default="sha256", description="Content hash used for digests.")
    sample_block_bytes: int | None = Field(
        default=None, description="Block size read at head, middle and tail in sample mode."
    )
    other: dict[str, JsonValue] = Field(
        default_factory=dict, description="Any other declared data facts, free-form."
    )
