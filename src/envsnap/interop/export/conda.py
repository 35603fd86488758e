"""`envsnap export conda`: an environment.yml that recreates a manifest's Python environment.

Packages conda installed (the manifest's conda-meta records) become exact `name=version=build`
specs, with the channels they came from where the records say; every other distribution goes
under `pip:` with the same lines `envsnap export requirements` writes. Without conda records the
file pins the interpreter version and puts every distribution under `pip:`.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping
from typing import Any

import yaml

from envsnap.interop.export.requirements import (
    distinct_packages,
    header_lines,
    requirement_line,
    torch_index,
)
from envsnap.manifest.lean import LeanManifest, as_lean
from envsnap.manifest.model import Manifest
from envsnap.manifest.sections.packages import CondaPackage
from envsnap.render.escape import terminal_text

# conda package names, versions and build strings (https://docs.conda.io/projects/
# conda-build/en/latest/resources/package-spec.html): no spaces, '=' or quotes.
_CONDA_FIELD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+!-]*")
_CHANNEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/:+-]*")


def _conda_spec(name: str, record: CondaPackage) -> str | None:
    fields = (name, record.version, record.build)
    if not all(_CONDA_FIELD.fullmatch(field) for field in fields):
        return None
    return "=".join(fields)


def _pip_lines(
    packages: list[Mapping[str, Any]], conda_names: set[str]
) -> tuple[list[str], list[str]]:
    """(pip requirement lines, comments) for what conda did not install."""
    lines: list[str] = []
    comments: list[str] = []
    for package in packages:
        if package.get("installer") == "conda" or package["name"].lower() in conda_names:
            continue
        line = requirement_line(package)
        (comments if line.startswith("#") else lines).append(line)
    return lines, comments


def to_environment_yml(manifest: Manifest | LeanManifest) -> str:
    """The environment.yml text."""
    lean = as_lean(manifest)
    manifest = lean.manifest
    comments = header_lines(manifest, "conda env create -f FILE")
    conda = (manifest.packages.conda if manifest.packages else None) or {}
    dependencies: list[Any] = []
    for name, record in conda.items():
        spec = _conda_spec(name, record)
        if spec is None:
            comments.append(f"# {terminal_text(name)}: conda record not well-formed; left out")
        else:
            dependencies.append(spec)
    if not conda and manifest.python is not None:
        dependencies.append(f"python={manifest.python.version}")
        comments.append("# no conda records: only the interpreter version comes from conda")
    channels = sorted(
        {r.channel for r in conda.values() if r.channel and _CHANNEL.fullmatch(r.channel)}
    )
    if not channels:
        comments.append("# channels were not recorded; conda uses the ones you configured")
    packages = distinct_packages(lean.installed.values())
    pip_lines, pip_comments = _pip_lines(packages, {name.lower() for name in conda})
    comments += pip_comments
    index = torch_index(packages)
    if pip_lines:
        extra = [f"--extra-index-url {index}"] if index else []
        if "pip" not in conda:
            dependencies.append("pip")
        dependencies.append({"pip": extra + pip_lines})
    document: dict[str, Any] = {"name": _env_name(manifest)}
    if channels:
        document["channels"] = channels
    document["dependencies"] = dependencies
    return "\n".join(comments) + "\n" + _yaml(document)


def _yaml(document: dict[str, Any]) -> str:
    """`yaml.safe_dump` of the document, with the pip list written here: PyYAML's pure-Python
    emitter takes about 14 us a line (2.8 s for 200k packages). Each line is written as
    PyYAML writes it at that place, so the text is the same (a test compares them)."""
    dependencies = document["dependencies"]
    pip = dependencies[-1]["pip"] if dependencies and isinstance(dependencies[-1], dict) else None
    if not pip:
        return _dump(document)
    head = _dump({**document, "dependencies": [*dependencies[:-1], {"pip": []}]})
    if not head.endswith("- pip: []\n"):  # not the layout this writer knows: let PyYAML do it
        return _dump(document)
    return head.removesuffix(" []\n") + "\n" + "".join(_item(line) for line in pip)


def _dump(document: Any) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False, width=1000)


# A requirement line PyYAML may write as a plain scalar: it starts with a letter or digit and
# holds no character that is YAML syntax inside a flow-free block sequence item.
_PLAIN_LINE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+!=-]*")
_STR_TAG = "tag:yaml.org,2002:str"


def _item(line: str) -> str:
    """The text PyYAML gives `line` as an item of the pip list: plain when it reads back as
    this string (PyYAML's own implicit resolvers decide, as its emitter does), else what
    PyYAML writes for it at the same place (quoted, or folded past the width)."""
    if (
        _PLAIN_LINE.fullmatch(line)
        and _resolver().resolve(yaml.ScalarNode, line, (True, False)) == _STR_TAG  # type: ignore[no-untyped-call]
    ):
        return f"  - {line}\n"
    return _dump([{"pip": [line]}]).removeprefix("- pip:\n")


@functools.cache
def _resolver() -> yaml.resolver.Resolver:
    return yaml.SafeDumper(io.StringIO())


def _env_name(manifest: Manifest) -> str:
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", manifest.run.label or "").strip("-.")
    return label or "envsnap-env"
