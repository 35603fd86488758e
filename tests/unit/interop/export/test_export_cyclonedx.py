"""CycloneDX export validates against the 1.6 schema and carries what the manifest holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap.interop.export.cyclonedx import to_cyclonedx_json, validate_cyclonedx_json
from envsnap.manifest.model import load
from tests.helpers import FIXTURES

pytest.importorskip("cyclonedx")
MANIFEST = FIXTURES / "manifests" / "full.json"


@pytest.fixture(scope="module")
def bom() -> dict:  # type: ignore[type-arg]
    text = to_cyclonedx_json(load(MANIFEST))
    assert validate_cyclonedx_json(text) is None
    return json.loads(text)  # type: ignore[no-any-return]


def test_document_is_cyclonedx_1_6_and_valid(bom: dict) -> None:  # type: ignore[type-arg]
    assert bom["bomFormat"] == "CycloneDX"
    assert bom["specVersion"] == "1.6"


def test_packages_are_components_with_pypi_purls(bom: dict) -> None:  # type: ignore[type-arg]
    manifest = load(MANIFEST)
    assert manifest.packages is not None
    libraries = {
        c["name"]: c for c in bom["components"] if c.get("purl", "").startswith("pkg:pypi/")
    }
    assert set(libraries) == set(manifest.packages.installed)
    torch = libraries["torch"]
    assert torch["version"] == manifest.packages.installed["torch"].version
    assert torch["purl"].startswith("pkg:pypi/torch@")


def test_gpu_driver_and_data_have_their_component_types(bom: dict) -> None:  # type: ignore[type-arg]
    manifest = load(MANIFEST)
    types = {c["type"] for c in bom["components"]}
    if manifest.gpu is not None and manifest.gpu.devices:
        assert "device" in types
        assert "device-driver" in types
    if manifest.data is not None and manifest.data.items:
        data = [c for c in bom["components"] if c["type"] == "data"]
        assert data
        hashed = [
            inner
            for component in data
            for inner in component.get("components", [])
            if inner.get("hashes")
        ]
        for inner in hashed:
            assert inner["hashes"][0]["alg"] == "SHA-256"
            assert len(inner["hashes"][0]["content"]) == 64


def test_run_settings_are_properties(bom: dict) -> None:  # type: ignore[type-arg]
    names = {p["name"] for p in bom["metadata"]["properties"]}
    assert "envsnap:digest" in names
    manifest = load(MANIFEST)
    for section in ("precision", "parallel", "seeds"):
        if getattr(manifest, section) is not None:
            assert any(name.startswith(f"envsnap:{section}.") for name in names), section


def test_validator_rejects_a_broken_document(bom: dict) -> None:  # type: ignore[type-arg]
    broken = dict(bom)
    broken["components"] = [{"type": "not-a-type", "name": "x"}]
    assert validate_cyclonedx_json(json.dumps(broken)) is not None


def test_cli_export_writes_the_same_document(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "bom.json"
    result = run_cli("export", "cyclonedx", str(MANIFEST), "-o", str(out))
    assert result.code == 0, result.err
    assert validate_cyclonedx_json(out.read_text()) is None
    # The same manifest always gives the same serial number.
    assert (
        json.loads(out.read_text())["serialNumber"]
        == json.loads(to_cyclonedx_json(load(MANIFEST)))["serialNumber"]
    )
