"""The strict models of the declarable tables (see envsnap.capturing.declared).

Imported only when something is declared: a capture that declares nothing never builds them.
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from envsnap.capturing.declared import DEFAULT_DATA_BUDGET_S
from envsnap.manifest.sections.base import Model
from envsnap.manifest.sections.data import HashMode
from envsnap.manifest.sections.parallel import ParallelDeclared
from envsnap.manifest.sections.precision import PrecisionDeclared


class DataSourceDeclared(Model):
    """One named data source."""

    path: str | None = Field(default=None, description="File or directory to hash.")
    mode: HashMode | None = Field(default=None, description="Overrides data.mode for this item.")
    versions: dict[str, str] = Field(
        default_factory=dict, description="Declared versions (hf_revision, dvc_md5, ...)."
    )


class DataDeclared(Model):
    """The [data] table."""

    mode: HashMode = Field(default="full", description="Default hashing mode.")
    paths: list[str] = Field(default_factory=list, description="Files or directories to hash.")
    sources: dict[str, DataSourceDeclared] = Field(
        default_factory=dict, description="Named data sources."
    )
    budget_s: float = Field(
        default=DEFAULT_DATA_BUDGET_S, gt=0, description="Time limit for data hashing, seconds."
    )
    workers: int = Field(default=0, ge=0, description="Hashing threads; 0 = one per core.")
    cache: bool = Field(default=True, description="Use the persistent digest cache.")
    max_listed_files: int = Field(default=10_000, ge=0, description="Cap on listed files.")
    other: dict[str, JsonValue] = Field(default_factory=dict, description="Free-form facts.")


class TokenizerDeclared(Model):
    """The [tokenizer] table."""

    path: str | None = Field(default=None, description="Tokenizer directory.")


class TemplatesDeclared(Model):
    """The [templates] table."""

    paths: list[str] = Field(default_factory=list, description="Template files.")
    files: dict[str, str] = Field(default_factory=dict, description="Name -> template file.")


DECLARED_MODELS: dict[str, type[Model]] = {
    "precision": PrecisionDeclared,
    "parallel": ParallelDeclared,
    "data": DataDeclared,
    "tokenizer": TokenizerDeclared,
    "templates": TemplatesDeclared,
}
