"""What the exports and `show` write by hand for speed is what the libraries would write.

cyclonedx-python-lib, PyYAML and rich took minutes for 200k packages, so package components,
pip lines and the package listing are written by envsnap; each test here builds the same
output with the library itself and requires the same result. A lean read (no model per
package) exports exactly what a full model exports.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from envsnap.interop.export.conda import to_environment_yml
from envsnap.interop.export.requirements import to_requirements
from envsnap.manifest.canonical import pretty_text
from envsnap.manifest.lean import load_lean
from envsnap.manifest.model import load, manifest_from_document
from envsnap.render.console import render_to_text
from envsnap.render.summary import package_listing, package_rows, render_summary
from tests.helpers import FIXTURES, CliResult

FULL = FIXTURES / "manifests" / "full.json"
# Names and versions package-url and YAML treat specially, beside plain ones.
ODD = [
    ("Foo_Bar", "1.0"),
    ("UPPER", "2.0+cu121"),
    ("tilde", "1!2.0"),
    ("no-version", None),
    ("yes", "1.0"),
    ("null", "true"),
    ("dots.in.name", "0.1.dev3"),
    ("plain", "1.2.3"),
]


def _odd_document(count: int = 40) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(FULL.read_text())
    installed = document["packages"]["installed"]
    template = next(iter(installed.values()))
    for name, version in ODD:
        installed[name.lower()] = {**template, "name": name, "version": version}
    installed["from-conda"] = {**template, "name": "from-conda", "installer": "conda"}
    installed["no-source"] = {**template, "name": "no-source", "source": None, "installer": None}
    for i in range(count):
        installed[f"pkg-{i:04d}"] = {**template, "name": f"pkg-{i:04d}", "version": f"1.{i}"}
    return manifest_from_document(document, "odd").sealed().to_document()


@pytest.fixture(scope="module")
def odd_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("odd") / "odd.json"
    path.write_text(pretty_text(_odd_document()))
    return path


def _library_package_components(installed: dict[str, Any]) -> list[Any]:
    """The components cyclonedx-python-lib makes for packages (envsnap's mapping)."""
    from cyclonedx.model import Property
    from cyclonedx.model.component import Component, ComponentType
    from packageurl import PackageURL

    return [
        Component(
            type=ComponentType.LIBRARY,
            name=key,
            version=package["version"],
            bom_ref=f"pkg:{key}",
            purl=PackageURL(type="pypi", name=key, version=package["version"]),
            properties=[
                Property(name=f"envsnap:{k}", value=str(v))
                for k, v in package.items()
                if k in ("source", "installer") and v
            ],
        )
        for key, package in sorted(installed.items())
    ]


def test_cyclonedx_packages_are_written_as_the_library_writes_them(odd_path: Path) -> None:
    pytest.importorskip("cyclonedx")
    from cyclonedx.output import make_outputter
    from cyclonedx.schema import OutputFormat, SchemaVersion

    from envsnap.interop.export.cyclonedx import (
        build_bom,
        to_cyclonedx_json,
        validate_cyclonedx_json,
    )

    lean = load_lean(odd_path)
    bom = build_bom(lean)  # everything but the packages, made by the library
    packages = _library_package_components(dict(lean.installed))
    for component in packages:
        bom.components.add(component)
    root = bom.metadata.component
    bom.register_dependency(root, packages)
    library = make_outputter(bom, OutputFormat.JSON, SchemaVersion.V1_6).output_as_string(indent=2)
    ours = to_cyclonedx_json(lean)
    assert validate_cyclonedx_json(ours) is None
    assert ours == library + "\n"
    assert ours == to_cyclonedx_json(load(odd_path))


def test_pip_lines_are_the_yaml_pyyaml_writes(odd_path: Path) -> None:
    text = to_environment_yml(load_lean(odd_path))
    body = text[text.index("name: ") :]
    document = yaml.safe_load(body)
    pip = document["dependencies"][-1]["pip"]
    assert {"yes==1.0", "null==true", "plain==1.2.3"} <= set(pip)
    reference = yaml.safe_dump(document, sort_keys=False, default_flow_style=False, width=1000)
    assert body == reference
    odd = copy.deepcopy(document)
    odd["dependencies"][-1]["pip"] += ["a b @ https://x/y#z", "1.5", "on", "x" * 1200, "é==1"]
    from envsnap.interop.export.conda import _yaml

    assert _yaml(odd) == yaml.safe_dump(odd, sort_keys=False, default_flow_style=False, width=1000)


@pytest.mark.parametrize(
    "export", [to_requirements, to_environment_yml], ids=["requirements", "conda"]
)
def test_a_lean_read_exports_what_the_model_exports(
    odd_path: Path, export: Callable[[Any], str]
) -> None:
    assert export(load_lean(odd_path)) == export(load(odd_path))
    assert export(load_lean(FULL)) == export(load(FULL))


def test_package_listing_is_rich_s_table(odd_path: Path) -> None:
    from rich.table import Table
    from rich.text import Text

    rows = [*package_rows(load(odd_path)), ("wide\x1b[31m", "1", "index")]
    table = Table(title="packages", show_lines=False, expand=False)
    for column in ("name", "version", "source"):
        table.add_column(column, overflow="fold")
    from envsnap.render.escape import terminal_text

    for row in rows:
        table.add_row(*(Text(terminal_text(value)) for value in row))
    assert package_listing(rows, color=False) == render_to_text(table, color=False)
    assert package_rows(load_lean(odd_path)) == package_rows(load(odd_path))


def test_show_of_a_lean_read_is_the_show_of_the_model(odd_path: Path) -> None:
    lean, full = load_lean(odd_path), load(odd_path)
    for packages in (False, True):
        assert render_summary(lean, color=False, packages=packages) == render_summary(
            full, color=False, packages=packages
        )


def test_verify_of_a_large_manifest_refuses_a_bad_entry(
    tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    document = _odd_document(count=6_000)  # over the validation slice
    good = tmp_path / "good.json"
    good.write_text(pretty_text(document))
    assert run_cli("verify", str(good)).code == 0
    document["packages"]["installed"]["pkg-5999"]["version"] = 5999
    bad = tmp_path / "bad.json"
    bad.write_text(pretty_text(document))
    result = run_cli("verify", str(bad))
    assert result.code == 2
    assert "packages.installed.pkg-5999.version" in result.err
