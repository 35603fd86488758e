"""MkDocs hooks: pages whose text is generated from the code at build time.

A page holds a marker comment, `<!-- generated: NAME -->`, and the hook replaces it with text
built from the source of truth: the rule catalogs (`envsnap.diff.catalog`, the check rules) and
the manifest's JSON Schema (from the pydantic models). Nothing generated is committed, so the
site cannot drift from the code.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from typing import Any

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")


def on_config(config: Any) -> Any:
    # The CLI registers commands as their modules are imported; import them all so the CLI
    # reference (mkdocs-click) lists every command, whatever was imported before.
    from envsnap.cli import COMMAND_MODULES

    for module in sorted(set(COMMAND_MODULES.values())):
        importlib.import_module(f"envsnap.cli.{module}")
    from envsnap.cli import cli

    show_real_defaults(cli)
    return config


def show_real_defaults(command: Any, parent: Any = None, name: str = "envsnap") -> None:
    """Give every option without a declared default the value its command receives.

    click >= 8.3 marks such options with a sentinel (`Sentinel.UNSET`), and mkdocs-click
    prints `option.default` as it is. The value a command gets is what `get_default` resolves
    (False for a flag), or None (click passes None, or () for `multiple`, for an absent
    option), which mkdocs-click shows as "None". Only the docs build's objects are changed.
    """
    # A context built as mkdocs-click builds it, so that the help option click creates (and
    # caches) here has the names the page shows.
    import click

    context = command.context_class(
        command, info_name=name, parent=parent, **command.context_settings
    )
    for param in command.get_params(context):
        if isinstance(param, click.Option) and _is_sentinel(param.default):
            resolved = param.get_default(context, call=False)
            param.default = None if _is_sentinel(resolved) else resolved
    for sub_name, sub in getattr(command, "commands", {}).items():
        show_real_defaults(sub, context, sub_name)


def _is_sentinel(value: object) -> bool:
    # click's UNSET is private API; recognise it by its class instead of importing it.
    return type(value).__name__ == "Sentinel"


def on_page_markdown(markdown: str, **_: Any) -> str:
    return MARKER.sub(lambda match: GENERATORS[match.group(1)](), markdown)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _rule_table(rules: Iterable[Any]) -> list[str]:
    lines = [
        "| rule | severity (bitwise / close / conclusion) | what | why | what to do | sources |",
        "|---|---|---|---|---|---|",
    ]
    for rule in rules:
        severity = " / ".join(rule.severity)
        refs = "; ".join(rule.refs)
        lines.append(
            f"| `{rule.id}` | {severity} | {_cell(rule.title)} | {_cell(rule.why)} | "
            f"{_cell(rule.fix)} | {_cell(refs)} |"
        )
    return lines


def rule_catalog() -> str:
    """Every diff rule, grouped by category, then every check rule."""
    from envsnap.diff.catalog import CATALOG
    from envsnap.diff.check.catalog import CHECK_RULES

    lines = [
        f"`envsnap diff` has {len(CATALOG)} rules; `envsnap check` has {len(CHECK_RULES)}.",
        "",
    ]
    for category in dict.fromkeys(rule.category for rule in CATALOG):
        lines += ["", f"## `diff`: {category}", ""]
        lines += _rule_table(rule for rule in CATALOG if rule.category == category)
    lines += ["", "## `check`", ""]
    lines += _rule_table(CHECK_RULES)
    return "\n".join(lines) + "\n"


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_type_of(option) for option in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type_of(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {_type_of(schema['additionalProperties'])}"
    return str(kind)


def _properties_table(schema: dict[str, Any]) -> list[str]:
    lines = ["| field | type | meaning |", "|---|---|---|"]
    for name, prop in schema.get("properties", {}).items():
        lines.append(f"| `{name}` | {_type_of(prop)} | {_cell(prop.get('description', ''))} |")
    return lines


def manifest_fields() -> str:
    """The manifest's fields, then each nested model, from the published JSON Schema."""
    from envsnap.manifest.model import schema_document

    schema = schema_document()
    lines = ["## Manifest", "", *_properties_table(schema)]
    for name, definition in sorted(schema.get("$defs", {}).items()):
        lines += ["", f"## {name}", ""]
        if definition.get("description"):
            lines += [_cell(definition["description"]), ""]
        lines += _properties_table(definition)
    return "\n".join(lines) + "\n"


def ngc_releases() -> str:
    """The NGC release table, one row per release; each value links the source stating it."""
    from envsnap.manifest.ngc_releases import NGC_PYTORCH_RELEASES

    columns = ("torch", "cuda", "cudnn", "cublas", "nccl", "tensorrt", "ubuntu", "python")
    heads = ("torch", "CUDA", "cuDNN", "cuBLAS", "NCCL", "TensorRT", "Ubuntu", "Python")
    lines = [
        "| release | " + " | ".join(heads) + " | sources |",
        "|---" * (len(columns) + 2) + "|",
    ]
    for row in NGC_PYTORCH_RELEASES:
        numbers = {source: index for index, source in enumerate(row.sources(), start=1)}
        cells = []
        for name in columns:
            value = getattr(row, name)
            cells.append(
                "" if value is None else f"{_cell(value)} [{numbers[row.source_of(name)]}]"
            )
        links = ", ".join(f"[{number}]({source})" for source, number in numbers.items())
        lines.append(f"| {row.release} | " + " | ".join(cells) + f" | {links} |")
    return "\n".join(lines) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "rule-catalog": rule_catalog,
    "manifest-fields": manifest_fields,
    "ngc-releases": ngc_releases,
}
