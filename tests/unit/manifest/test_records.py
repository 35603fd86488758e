"""The plain records a capture fills stand for the manifest's models exactly."""

from __future__ import annotations

import importlib.util
import math
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, JsonValue

from envsnap.manifest import records
from envsnap.manifest.model import Manifest
from envsnap.manifest.records import Record, plain
from tests.helpers import REPO_ROOT


def _generator() -> types.ModuleType:
    path = REPO_ROOT / "tools" / "gen_records.py"
    spec = importlib.util.spec_from_file_location("gen_records", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_is_current() -> None:
    generator = _generator()
    assert Path(records.__file__).read_text(encoding="utf-8") == generator.formatted(
        generator.render()
    ), "src/envsnap/manifest/records.py is stale: run python tools/gen_records.py"


def _is_model(annotation: Any) -> bool:
    # On Python 3.10 `list[str]` passes isinstance(..., type), and issubclass then raises.
    return (
        isinstance(annotation, type)
        and typing.get_origin(annotation) is None
        and issubclass(annotation, BaseModel)
    )


def _models() -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []

    def visit(annotation: Any) -> None:
        if _is_model(annotation):
            if annotation not in found:
                found.append(annotation)
                for info in annotation.model_fields.values():
                    visit(info.annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(Manifest)
    return found


def _sample(annotation: Any) -> Any:
    """A value of the type, as a record takes it (models become their records)."""
    if _is_model(annotation):
        return _required(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        return _sample(next(arg for arg in args if arg is not type(None)))
    if origin is dict or annotation is JsonValue:
        return {}
    if origin is list:
        return []
    # An int where the model wants a float: the record must make it a float, as pydantic does.
    return {str: "text", int: 3, float: 2, bool: True}.get(annotation, "2026-12-01T00:00:00Z")


def _required(model: type[BaseModel]) -> Record:
    values = {
        name: _sample(info.annotation)
        for name, info in model.model_fields.items()
        if info.is_required()
    }
    record: Record = getattr(records, model.__name__)(**values)
    return record


@pytest.mark.parametrize("model", _models(), ids=lambda model: model.__name__)
def test_a_record_dumps_as_its_model_does(model: type[BaseModel]) -> None:
    """Field names, order, defaults and float coercion: the record's JSON form is the model's."""
    document = plain(_required(model))
    assert list(document) == list(model.model_fields)
    assert model.model_validate(document).model_dump(mode="json") == document


def test_plain_gives_json_values_only() -> None:
    assert plain({"a": (1, 2.5, None), "b": [math.inf, math.nan]}) == {
        "a": [1, 2.5, None],
        "b": [None, None],
    }
    with pytest.raises(TypeError, match="object is not a JSON value"):
        plain({"a": object()})
    with pytest.raises(TypeError, match="a key of type int is not text"):
        plain({1: "x"})


def test_records_compare_by_value() -> None:
    one = records.Remote(name="origin", url="https://example.com/r.git")
    assert one == records.Remote(name="origin", url="https://example.com/r.git")
    assert one != records.Remote(name="origin", url="https://example.com/other.git")
    assert repr(one) == "Remote(name='origin', url='https://example.com/r.git')"
