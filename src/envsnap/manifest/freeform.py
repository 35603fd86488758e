"""The free-form maps of the manifest model: where a writer, not the schema, decides the shape.

`extra`, `precision.other`, `data.other`, `parallel.other` and the optimizer's and scheduler's
state are `dict[str, JsonValue]`. They are found from the model itself, so a new one is covered
without a list to keep up: the reader bounds their depth, and the capture redacts them by key
name as well as by value format.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

Path = tuple[str, ...]


def _is_free_form(annotation: Any) -> bool:
    """True for JsonValue and dict[str, ...] of it (nested dicts included)."""
    from pydantic import JsonValue

    if annotation is JsonValue:
        return True
    args = typing.get_args(annotation)
    return typing.get_origin(annotation) is dict and len(args) == 2 and _is_free_form(args[1])


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]


@functools.cache
def free_form_paths(model: type[BaseModel]) -> tuple[Path, ...]:
    """Paths (field names, `*` for any key of a dict) of the free-form maps of `model`."""
    paths: list[Path] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if _is_free_form(annotation):
            paths.append((name,))
            continue
        step = (name, "*") if typing.get_origin(annotation) is dict else (name,)
        for inner in _models_in(annotation):
            paths += [(*step, *rest) for rest in free_form_paths(inner)]
    return tuple(paths)


def values_at(document: Any, path: Path) -> Iterator[Any]:
    """The values found at `path` in a parsed document (none where a step is missing)."""
    if not path:
        yield document
        return
    if not isinstance(document, dict):
        return
    head, rest = path[0], path[1:]
    children = document.values() if head == "*" else [document[head]] if head in document else []
    for child in children:
        yield from values_at(child, rest)


def replace_at(document: Any, path: Path, change: typing.Callable[[Any], Any]) -> Any:
    """A copy of `document` with `change` applied to every value at `path`."""
    if not path:
        return change(document)
    if not isinstance(document, dict):
        return document
    head, rest = path[0], path[1:]
    keys = list(document) if head == "*" else [head] if head in document else []
    return {**document, **{key: replace_at(document[key], rest, change) for key in keys}}
