"""Sealed documents: models whose JSON form carries a digest of the rest of their content.

A manifest and a cluster manifest are both sealed: `sealed()` sets the digest, and
`verify_document` recomputes it over a document as stored, so an edit to any byte of content
(even in a field this version does not model) is detected.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, Field
from pydantic_core import SchemaSerializer, to_jsonable_python

from envsnap.manifest.canonical import digest_of, pretty_text
from envsnap.manifest.sections.base import Model

SealedT = TypeVar("SealedT", bound="SealedDocument")


class SealedDocument(Model):
    """The digest field and the methods that keep it in step with the content."""

    digest: str | None = Field(
        default=None,
        description="sha256 of the canonical JSON of every other field, prefixed 'sha256:'.",
    )

    def to_document(self) -> dict[str, Any]:
        """The JSON-compatible dict form, digest included (equal to `model_dump(mode="json")`).

        Each nested model is serialised by its own class: writing a document never builds the
        serializer of the whole tree, whose schema is only needed to validate what is read.
        """
        values = self.field_values()
        _build_serializers(values.values())
        document: dict[str, Any] = to_jsonable_python(values)
        return document

    def to_native(self) -> dict[str, Any]:
        """The Python-mode dict form (equal to `model_dump()`), built the same way."""
        return {name: _native(value) for name, value in self.field_values().items()}

    def field_values(self) -> dict[str, Any]:
        """Every field's value, in field order, nested models left as they are."""
        return {name: getattr(self, name) for name in type(self).model_fields}

    def compute_digest(self) -> str:
        return digest_of(self.to_document())

    def sealed(self: SealedT) -> SealedT:
        """A copy whose `digest` matches its content."""
        return self.model_copy(update={"digest": self.compute_digest()})

    def to_json(self) -> str:
        """Pretty, sorted JSON text (what is written to files)."""
        return pretty_text(self.to_document())


def _build_serializers(values: Iterable[Any]) -> None:
    """Give each model class among `values` a built serializer.

    A deferred class (`defer_build`) whose instances were made by another model's validator
    still holds pydantic's placeholder serializer, `MockValSer`. `to_jsonable_python` reads it
    without its rebuild hook (pydantic/pydantic#13647): pydantic 2.6 to 2.13 raise "'MockValSer'
    object cannot be converted to 'SchemaSerializer'", 2.14 builds it; `model_rebuild` builds
    it on every version.
    """
    for model in {type(item) for value in values for item in _items(value)}:
        if not isinstance(model.__pydantic_serializer__, SchemaSerializer):
            model.model_rebuild(force=True)


def _items(value: Any) -> Iterable[BaseModel]:
    """The models a field holds: itself, or those directly in its list or dict."""
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        value = (value,)
    return (item for item in value if isinstance(item, BaseModel))


def _native(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {key: _native(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_native(item) for item in value]
    return value


def verify_document(document: dict[str, Any]) -> tuple[bool, str | None, str]:
    """Return (matches, recorded digest, recomputed digest) for a parsed sealed document."""
    recorded = document.get("digest")
    recomputed = digest_of(document)
    return (
        (isinstance(recorded, str) and recorded == recomputed),
        (recorded if isinstance(recorded, str) else None),
        recomputed,
    )


def published_schema(
    model: type[BaseModel], *, file: str, title: str, description: str
) -> dict[str, Any]:
    """The JSON Schema of `model` as published in schemas/`file`."""
    schema = model.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://envsnap.dev/schemas/{file}"
    schema["title"] = title
    schema["description"] = description
    return schema
