"""`envsnap export conda`: an environment.yml that recreates a manifest's Python environment.

Packages conda installed (the manifest's conda-meta records) become exact `name=version=build`
specs, with the channels they came from where the records say; every other distribution goes
under `pip:` with the same lines `envsnap export requirements` writes. Without conda records the
file pins the interpreter version and puts every distribution under `pip:`.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from envsnap.interop.export.requirements import (
    distinct_packages,
    header_lines,
    requirement_line,
    torch_index,
)
from envsnap.manifest.model import Manifest
from envsnap.manifest.sections.packages import CondaPackage, Package
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


def _pip_lines(packages: list[Package], conda_names: set[str]) -> tuple[list[str], list[str]]:
    """(pip requirement lines, comments) for what conda did not install."""
    lines: list[str] = []
    comments: list[str] = []
    for package in packages:
        if package.installer == "conda" or package.name.lower() in conda_names:
            continue
        line = requirement_line(package)
        (comments if line.startswith("#") else lines).append(line)
    return lines, comments


def to_environment_yml(manifest: Manifest) -> str:
    """The environment.yml text."""
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
    packages = distinct_packages(manifest.packages.installed.values()) if manifest.packages else []
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
    body = yaml.safe_dump(document, sort_keys=False, default_flow_style=False, width=1000)
    return "\n".join(comments) + "\n" + body


def _env_name(manifest: Manifest) -> str:
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", manifest.run.label or "").strip("-.")
    return label or "envsnap-env"
