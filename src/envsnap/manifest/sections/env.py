"""The `env` section: environment variables that can change results."""

from __future__ import annotations

from pydantic import Field

from envsnap.manifest.sections.base import Section


class EnvSection(Section):
    variables: dict[str, str] = Field(
        description="Selected variables and their values; secret values are replaced by "
        "'<redacted>'."
    )
    prefixes: list[str] = Field(description="Name prefixes (families) that were selected.")
    names: list[str] = Field(description="Exact names selected in addition to the prefixes.")
    redacted: list[str] = Field(
        default_factory=list, description="Names whose value was redacted, sorted."
    )
