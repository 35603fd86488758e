"""Validate data against a model and report the first problem as one line."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from envsnap.errors import EnvsnapError

ModelT = TypeVar("ModelT", bound=BaseModel)


def validate_one_line(
    model: type[ModelT],
    data: Any,
    *,
    error: type[EnvsnapError],
    context: str,
    loc: tuple[str, ...] = (),
    top: str = "(top level)",
    count_more: bool = False,
    strict: bool = False,
) -> ModelT:
    """`model.model_validate(data)`, or `error("{context}: {where}: {message}")`.

    `where` is the dotted location of the first problem, after `loc` (or `top` when it is the
    data itself); `count_more` adds how many other problems there are. `strict` refuses
    values of another JSON type instead of coercing them.
    """
    try:
        return model.model_validate(data, strict=strict)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in (*loc, *first["loc"])) or top
        more = ""
        if count_more and exc.error_count() > 1:
            more = f" (and {exc.error_count() - 1} more problems)"
        raise error(f"{context}: {where}: {first['msg']}{more}") from None
