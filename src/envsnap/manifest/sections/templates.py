"""The `templates` section: digests of the prompt and chat templates a job used."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class TemplateEntry(Model):
    """One template: a file, or text handed to the API."""

    kind: Literal["file", "text"] = Field(description="Read from a file, or given as text.")
    path: str | None = Field(default=None, description="File path as declared.")
    digest: str | None = Field(default=None, description="'sha256:<hex>' of the template bytes.")
    bytes: int | None = Field(default=None, description="Template size in bytes.")
    error: str | None = Field(default=None, description="Why the template could not be read.")


class TemplatesSection(Section):
    """Templates keyed by declared name (or path as given)."""

    templates: dict[str, TemplateEntry] = Field(
        default_factory=dict, description="Templates keyed by declared name or path."
    )
