"""The base of every manifest section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    """Strict base for manifest models: unknown keys are an error, not silently kept."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Section(Model):
    """A manifest section. Values that could not be read are null and listed in `unknown`."""

    unknown: dict[str, str] = Field(
        default_factory=dict,
        description="Fields of this section that could not be collected, mapped to the reason.",
    )
