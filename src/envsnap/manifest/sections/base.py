"""The base of every manifest section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    """Strict base for manifest models: unknown keys are an error, not silently kept.

    Validators are built on a class's first use, not at import: a capture builds only the
    sections it fills, and `import envsnap.manifest.model` stays cheap. Collectors build their
    sections in parallel threads; no two collectors build the same class, and pydantic itself
    serialises concurrent first builds (a lock in `model_rebuild`, pydantic/pydantic#13438).
    """

    # Fields such as `model_type` and `model_class` name the trained model, not pydantic API;
    # pydantic before 2.10 warns about every field starting with `model_` unless told this.
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, defer_build=True, protected_namespaces=()
    )


class Section(Model):
    """A manifest section. Values that could not be read are null and listed in `unknown`."""

    unknown: dict[str, str] = Field(
        default_factory=dict,
        description="Fields of this section that could not be collected, mapped to the reason.",
    )
