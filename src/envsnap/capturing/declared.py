"""What a job can declare without code: the [tool.envsnap] tables of the in-job sections.

Each table is validated by a strict model, so a typo is one clear error instead of a value
silently ignored. Config tables, `--set` and the API's keyword dicts all go through here.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue

from envsnap.errors import ConfigError
from envsnap.manifest.sections.base import Model
from envsnap.manifest.sections.data import HashMode
from envsnap.manifest.sections.parallel import ParallelDeclared
from envsnap.manifest.sections.precision import PrecisionDeclared
from envsnap.manifest.validation import validate_one_line

DEFAULT_DATA_BUDGET_S = 600.0


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
# In-job sections a config table, --set or the API can declare values for.
DECLARED_SECTIONS: tuple[str, ...] = tuple(DECLARED_MODELS)

# Short spellings accepted in config and --set, mapped to the manifest field names.
ALIASES: dict[str, dict[str, str]] = {
    "parallel": {
        "global_batch": "global_batch_declared",
        "grad_accum": "grad_accum_steps",
        "gradient_accumulation_steps": "grad_accum_steps",
        "micro_batch": "micro_batch_size",
        "bucket_cap_mb": "ddp_bucket_cap_mb",
        "find_unused_parameters": "ddp_find_unused_parameters",
    },
}


def normalize(section: str, table: dict[str, Any], source: str) -> dict[str, Any]:
    """Validate a declared table; return it with aliases resolved (only the keys given)."""
    model = DECLARED_MODELS[section]
    aliases = ALIASES.get(section, {})
    renamed = {aliases.get(key, key): value for key, value in table.items()}
    validated = validate_one_line(model, renamed, error=ConfigError, context=source, loc=(section,))
    return validated.model_dump(mode="json", include=set(renamed))


def parse(section: str, table: dict[str, Any], source: str) -> Any:
    """The validated model of a declared table (defaults filled in)."""
    return DECLARED_MODELS[section].model_validate(normalize(section, table, source))
