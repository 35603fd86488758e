"""Generate src/envsnap/manifest/records.py from the manifest's pydantic models.

The capture path fills plain records instead of pydantic models: defining ~55 model classes and
building their validators costs several times what the collectors themselves take, and what
envsnap writes itself does not need validating (reading does, strictly). The records carry the
models' field names, types, defaults and order, so this module is generated from the models,
and a test fails when the two drift apart.

    python tools/gen_records.py            # rewrite the module
    python tools/gen_records.py --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys
import types
import typing
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, JsonValue
from pydantic.fields import FieldInfo

from envsnap.manifest import sections
from envsnap.manifest.freeform import free_form_paths
from envsnap.manifest.model import Manifest
from envsnap.manifest.sections import SECTION_MODELS
from envsnap.manifest.sections.base import Section

TARGET = Path(__file__).resolve().parents[1] / "src" / "envsnap" / "manifest" / "records.py"

HEADER = '''"""Plain records of the manifest's models, for the capture path. GENERATED: do not edit.

Regenerate with `python tools/gen_records.py` after changing a model in envsnap.manifest. Each
class has the fields, types, defaults and field order of the pydantic model of the same name;
building one costs a few attribute stores, and defining them all costs nothing worth measuring,
so a capture never imports pydantic. What a capture writes is validated when it is read.
"""

from __future__ import annotations

from typing import Any, Literal

from envsnap.manifest.record_base import JsonValue, Record, Section, as_float, plain

'''


def _models() -> list[type[BaseModel]]:
    """Every model reachable from Manifest, dependencies first, Manifest last."""
    ordered: list[type[BaseModel]] = []

    def visit(annotation: Any) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation in ordered:
                return
            for info in annotation.model_fields.values():
                visit(info.annotation)
            ordered.append(annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(Manifest)
    names = [model.__name__ for model in ordered]
    duplicated = {name for name in names if names.count(name) > 1}
    if duplicated:
        raise SystemExit(f"two models share a name: {sorted(duplicated)}")
    return ordered


def _literal_aliases() -> dict[Any, str]:
    """Module-level Literal aliases of the section modules (HashMode...), by value."""
    aliases: dict[Any, str] = {}
    for info in pkgutil.iter_modules(sections.__path__):
        module = importlib.import_module(f"{sections.__name__}.{info.name}")
        for name, value in vars(module).items():
            if typing.get_origin(value) is typing.Literal and not name.startswith("_"):
                aliases.setdefault(value, name)
    return aliases


class _Renderer:
    def __init__(self, aliases: dict[Any, str]) -> None:
        self.aliases = aliases

    def type(self, annotation: Any) -> str:
        if annotation in self.aliases:
            return self.aliases[annotation]
        if annotation is type(None) or annotation is None:
            return "None"
        if annotation is JsonValue:
            return "JsonValue"
        if annotation is Any:
            return "Any"
        if annotation is datetime:
            return "str"  # the capture writes created_at as ISO 8601 text
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return annotation.__name__
        if annotation in (bool, int, float, str):
            return str(annotation.__name__)
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is typing.Annotated:
            return self.type(args[0])
        if origin is typing.Literal:
            return f"Literal[{', '.join(repr(arg) for arg in args)}]"
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.type(arg) for arg in args)
        if origin in (dict, list):
            return f"{origin.__name__}[{', '.join(self.type(arg) for arg in args)}]"
        raise SystemExit(f"no record type for {annotation!r}")


def _is_float(annotation: Any) -> bool:
    """float | None."""
    return set(typing.get_args(annotation)) == {float, type(None)}


def _field_lines(name: str, info: FieldInfo, kind: str) -> tuple[str, str, str]:
    """(the parameter, the attribute annotation, the assignment) of one field."""
    value = name
    if info.annotation is float:
        value = f"float({name})"
    elif _is_float(info.annotation):
        value = f"as_float({name})"
    if info.default_factory is not None:
        empty = repr(info.default_factory())  # type: ignore[call-arg]
        if empty not in ("{}", "[]"):
            raise SystemExit(f"{name}: default_factory must make an empty dict or list")
        return (
            f"{name}: {kind} | None = None",
            f"{name}: {kind}",
            f"self.{name} = {empty} if {name} is None else {name}",
        )
    if info.is_required():
        return f"{name}: {kind}", f"{name}: {kind}", f"self.{name} = {value}"
    default = info.default
    if isinstance(default, (list, dict)):
        raise SystemExit(f"{name}: a mutable default must use default_factory")
    return f"{name}: {kind} = {default!r}", f"{name}: {kind}", f"self.{name} = {value}"


def _class_source(model: type[BaseModel], render: _Renderer) -> str:
    base = "Section" if issubclass(model, Section) else "Record"
    fields = list(model.model_fields.items())
    parts = [_field_lines(name, info, render.type(info.annotation)) for name, info in fields]
    slots = "".join(f"{name!r}, " for name, _ in fields).rstrip(" ")
    lines = [
        f"class {model.__name__}({base}):",
        f"    FIELDS = ({slots})",
        "    __slots__ = FIELDS",
        "",
        *(f"    {annotation}" for _, annotation, _ in parts),
        "",
        "    def __init__(",
        "        self,",
        "        *,",
        *(f"        {parameter}," for parameter, _, _ in parts),
        "    ) -> None:",
        *(f"        {assignment}" for _, _, assignment in parts),
    ]
    return "\n".join(lines) + "\n"


def _isort_key(name: str) -> tuple[int, str]:
    """Constants, then classes, then functions, as ruff sorts __all__."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def render() -> str:
    """The text of records.py for the models as they are now."""
    aliases = _literal_aliases()
    renderer = _Renderer(aliases)
    out = [HEADER]
    for alias, name in sorted(aliases.items(), key=lambda item: item[1]):
        values = ", ".join(repr(arg) for arg in typing.get_args(alias))
        out.append(f"{name} = Literal[{values}]\n")
    for model in _models():
        out.append("\n\n" + _class_source(model, renderer))
    sections_map = "".join(
        f"    {name!r}: {model.__name__},\n" for name, model in SECTION_MODELS.items()
    )
    paths = "".join(f"    {path!r},\n" for path in free_form_paths(Manifest))
    out.append(
        "\n\n# Manifest field name -> section record, in the order of SECTION_MODELS.\n"
        f"SECTION_RECORDS: dict[str, type[Section]] = {{\n{sections_map}}}\n"
        "# Free-form maps (see envsnap.manifest.freeform), redacted by key name as well.\n"
        f"FREE_FORM_PATHS: tuple[tuple[str, ...], ...] = (\n{paths})\n"
    )
    public = [
        "FREE_FORM_PATHS",
        "SECTION_RECORDS",
        "JsonValue",
        "Record",
        "Section",
        "plain",
        *aliases.values(),
        *(model.__name__ for model in _models()),
    ]
    out.append(
        f"\n__all__ = [{', '.join(repr(name) for name in sorted(set(public), key=_isort_key))}]\n"
    )
    return "".join(out)


def formatted(text: str) -> str:
    """`text` as the project's formatter writes it."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(TARGET), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if records.py is stale")
    args = parser.parse_args()
    text = formatted(render())
    if args.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run python tools/gen_records.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
