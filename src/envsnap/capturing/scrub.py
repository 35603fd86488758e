"""The last pass before a manifest is sealed, for captures and imported records alike.

Collectors and importers redact what they know to be sensitive; this pass catches what slipped
through: every string is checked for credential formats, and the values of free-form maps
(`extra`, `precision.other`, `data.other`, `parallel.other`...) are also redacted by key name,
since a job may put `hf_token` there. The manifest's own field names say nothing about secrets,
so outside those maps only value formats count.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

from pydantic import BaseModel, JsonValue

from envsnap.capturing.redact import Redactor
from envsnap.manifest.model import Manifest


def _is_free_form(annotation: Any) -> bool:
    """True for dict[str, JsonValue] (possibly nested in dicts or Optional)."""
    if annotation is JsonValue:
        return True
    args = typing.get_args(annotation)
    return typing.get_origin(annotation) is dict and len(args) == 2 and _is_free_form(args[1])


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]


@functools.cache
def free_form_paths(model: type[BaseModel] = Manifest) -> tuple[tuple[str, ...], ...]:
    """Paths (field names; `*` for any key of a dict) of the free-form maps of a model."""
    paths: list[tuple[str, ...]] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if _is_free_form(annotation) or (
            typing.get_origin(annotation) is dict and _is_free_form(typing.get_args(annotation)[1])
        ):
            paths.append((name,))
            continue
        keyed = typing.get_origin(annotation) is dict
        for inner in _models_in(annotation):
            step = (name, "*") if keyed else (name,)
            paths += [(*step, *rest) for rest in free_form_paths(inner)]
    return tuple(paths)


def _redact_at(value: Any, path: tuple[str, ...], redactor: Redactor) -> Any:
    if not path:
        return redactor.redact_json(value, by_name=True)
    if not isinstance(value, dict):
        return value
    head, rest = path[0], path[1:]
    keys = list(value) if head == "*" else [head] if head in value else []
    return {**value, **{key: _redact_at(value[key], rest, redactor) for key in keys}}


def scrub_document(document: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """Redact credential formats everywhere, and secret-named keys inside free-form maps."""
    for path in free_form_paths():
        document = _redact_at(document, path, redactor)
    clean: dict[str, Any] = redactor.redact_json(document, by_name=False)
    return clean


def scrubbed(manifest: Manifest, redactor: Redactor) -> Manifest:
    """The manifest with text UTF-8 can carry and no credentials (unchanged when clean)."""
    # Python mode first: the JSON-mode dump turns such characters in dict keys into U+FFFD.
    native = manifest.model_dump()
    encodable = utf8_safe(native)
    if encodable != native:
        manifest = Manifest.model_validate(encodable)
    document = manifest.to_document()
    clean = scrub_document(document, redactor)
    return manifest if clean == document else Manifest.model_validate(clean)


def utf8_safe(value: Any) -> Any:
    """Replace what UTF-8 cannot encode (undecodable bytes in env values, paths or argv, which
    Python keeps as lone surrogates) with backslash escapes such as `\\xff`."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            try:
                raw = value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a surrogate that did not come from a byte
                return value.encode("utf-8", "backslashreplace").decode("utf-8")
            return raw.decode("utf-8", "backslashreplace")
        return value
    if isinstance(value, dict):
        return {utf8_safe(k): utf8_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [utf8_safe(item) for item in value]
    return value
