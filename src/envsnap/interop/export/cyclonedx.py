"""CycloneDX 1.6 JSON export of a manifest, built with cyclonedx-python-lib.

Mapping: installed packages are `library` components with pypi purls; each GPU is a `device`,
the NVIDIA driver a `device-driver`, the OS an `operating-system`; every data item is a `data`
component (its files nested, with their sha256 where the data was fully hashed); the CUDA
libraries torch loads are `library` components. Run settings that have no component of their
own (precision, parallel layout, seeds, determinism and TF32 state) become `envsnap:` properties
on the BOM's metadata, one per scalar value. Advisories of `envsnap audit` that apply to the
run are the BOM's `vulnerabilities` (see envsnap/audit/cyclonedx.py).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.manifest.model import Manifest

# Sections whose scalar values are recorded as BOM properties.
_SETTING_SECTIONS = ("precision", "parallel", "seeds", "torch")
_PROPERTY_PREFIX = "envsnap:"
_MAX_PROPERTY_VALUE = 1024
# A stable namespace so the same manifest always gets the same BOM serial number.
_SERIAL_NAMESPACE = uuid.UUID("8f0c2a52-5b7e-4d0c-9d1e-6b1c4f3e2a10")


def _require() -> Any:
    try:
        import cyclonedx.model.bom as bom_module
    except ImportError:
        raise EnvsnapError(
            "CycloneDX export needs cyclonedx-python-lib: pip install 'envsnap-ml[sbom]'"
        ) from None
    return bom_module


def scalar_leaves(node: Any, prefix: str) -> Iterator[tuple[str, str]]:
    """(dotted path, text) for every scalar under `node`, in key order; skips `unknown`."""
    if isinstance(node, dict):
        for key in sorted(node):
            if key == "unknown":
                continue
            yield from scalar_leaves(node[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(node, list):
        if all(not isinstance(item, (dict, list)) for item in node):
            yield prefix, ",".join(str(item) for item in node)
        else:
            for index, item in enumerate(node):
                yield from scalar_leaves(item, f"{prefix}.{index}")
    elif node is not None:
        text = str(node).lower() if isinstance(node, bool) else str(node)
        yield prefix, text[:_MAX_PROPERTY_VALUE]


def _sha256_hex(digest: str | None) -> str | None:
    if not digest:
        return None
    value = digest.split(":", 1)[-1]
    return value if re.fullmatch(r"[0-9a-fA-F]{64}", value) else None


def build_bom(manifest: Manifest) -> Any:
    """The cyclonedx `Bom` object for a manifest."""
    _require()
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.component import Component, ComponentType

    document = manifest.to_document()
    components = [
        *_package_components(document.get("packages") or {}),
        *_gpu_components(document.get("gpu") or {}),
        *_stack_components(document.get("cuda_stack") or {}),
        *_os_components(document.get("system") or {}),
        *_data_components(document.get("data") or {}),
    ]
    code = document.get("code") or {}
    root = Component(
        type=ComponentType.APPLICATION,
        name=manifest.run.label or "training-run",
        version=(code.get("commit") or "")[:12] or None,
        bom_ref="run",
    )
    bom = Bom(
        serial_number=uuid.uuid5(_SERIAL_NAMESPACE, manifest.digest or manifest.compute_digest()),
        components=components,
    )
    bom.metadata.component = root
    # The run depends on everything it recorded; this also completes the dependency graph.
    bom.register_dependency(root, components)
    bom.metadata.timestamp = manifest.created_at
    _add_advisories(bom, document, {str(c.bom_ref) for c in components}, str(root.bom_ref))
    for prop in _props(iter(_run_settings(manifest, document))):
        bom.metadata.properties.add(prop)
    return bom


def _props(pairs: Iterator[tuple[str, str]]) -> list[Any]:
    from cyclonedx.model import Property

    return [Property(name=_PROPERTY_PREFIX + key, value=value) for key, value in pairs]


def _package_components(packages: dict[str, Any]) -> list[Any]:
    from cyclonedx.model.component import Component, ComponentType
    from packageurl import PackageURL

    return [
        Component(
            type=ComponentType.LIBRARY,
            name=key,
            version=package["version"],
            bom_ref=f"pkg:{key}",
            purl=PackageURL(type="pypi", name=key, version=package["version"]),
            properties=_props(
                iter(
                    [(k, str(v)) for k, v in package.items() if k in ("source", "installer") and v]
                )
            ),
        )
        for key, package in sorted((packages.get("installed") or {}).items())
    ]


def _gpu_components(gpu: dict[str, Any]) -> list[Any]:
    from cyclonedx.model.component import Component, ComponentType

    components = []
    for index, device in sorted((gpu.get("devices") or {}).items(), key=lambda kv: int(kv[0])):
        facts = {k: v for k, v in device.items() if k not in ("name", "mig_devices")}
        components.append(
            Component(
                type=ComponentType.DEVICE,
                name=device.get("name") or f"gpu {index}",
                bom_ref=f"gpu:{index}",
                properties=_props(scalar_leaves(facts, "gpu")),
            )
        )
    if gpu.get("driver_version"):
        components.append(
            Component(
                type=ComponentType.DEVICE_DRIVER,
                name="nvidia-driver",
                version=gpu["driver_version"],
                bom_ref="gpu:driver",
                properties=_props(
                    iter([("cuda_driver_version", str(gpu.get("cuda_driver_version")))])
                ),
            )
        )
    return components


def _stack_components(stack: dict[str, Any]) -> list[Any]:
    from cyclonedx.model.component import Component, ComponentType

    components = []
    for name, library in sorted((stack.get("libraries") or {}).items()):
        if not library.get("version"):
            continue
        selected = library.get("selected") or {}
        details = [
            ("loaded_from", str(selected.get("source"))),
            ("reason", library.get("reason", "")),
        ]
        components.append(
            Component(
                type=ComponentType.LIBRARY,
                name=name,
                version=library["version"],
                bom_ref=f"cuda-stack:{name}",
                properties=_props(iter(details)),
            )
        )
    return components


def _os_components(system: dict[str, Any]) -> list[Any]:
    from cyclonedx.model.component import Component, ComponentType

    if not system:
        return []
    return [
        Component(
            type=ComponentType.OPERATING_SYSTEM,
            name=system.get("os_release") or system.get("os", "unknown"),
            version=system.get("kernel"),
            bom_ref="os",
            properties=_props(scalar_leaves(system.get("cpu") or {}, "cpu")),
        )
    ]


def _data_components(data: dict[str, Any]) -> list[Any]:
    from cyclonedx.model import HashAlgorithm, HashType
    from cyclonedx.model.component import Component, ComponentType

    components = []
    for item_id, item in sorted((data.get("items") or {}).items()):
        files = [
            Component(
                type=ComponentType.DATA,
                name=path,
                bom_ref=f"data:{item_id}:{path}",
                hashes=[HashType(alg=HashAlgorithm.SHA_256, content=sha)]
                if (sha := _sha256_hex(entry.get("digest"))) and item.get("mode") == "full"
                else None,
            )
            for path, entry in sorted((item.get("files") or {}).items())
        ]
        item_facts = {k: v for k, v in item.items() if k not in ("files", "dirs")}
        components.append(
            Component(
                type=ComponentType.DATA,
                name=item.get("path") or item_id,
                bom_ref=f"data:{item_id}",
                properties=_props(scalar_leaves(item_facts, "data")),
                components=files,
            )
        )
    return components


def _run_settings(manifest: Manifest, document: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's own facts as BOM metadata properties: digest, code state, result settings."""
    settings: list[tuple[str, str]] = [
        ("digest", manifest.digest or ""),
        ("schema_version", manifest.schema_version),
    ]
    code = document.get("code") or {}
    for key in ("commit", "branch", "dirty", "diff_sha256"):
        value = code.get(key)
        if value is not None:
            settings.append(
                (f"code.{key}", str(value).lower() if isinstance(value, bool) else str(value))
            )
    for section in _SETTING_SECTIONS:
        settings.extend(scalar_leaves(document.get(section) or {}, section))
    return settings


def _add_advisories(bom: Any, document: dict[str, Any], refs: set[str], root: str) -> None:
    """The advisories of `envsnap audit` that apply, as the BOM's vulnerabilities."""
    from envsnap.audit import audit_document, load
    from envsnap.audit.cyclonedx import vulnerabilities

    for vulnerability in vulnerabilities(audit_document(document, load()), refs, root):
        bom.vulnerabilities.add(vulnerability)


def to_cyclonedx_json(manifest: Manifest) -> str:
    """Serialise a manifest as CycloneDX 1.6 JSON text."""
    from cyclonedx.output import make_outputter
    from cyclonedx.schema import OutputFormat, SchemaVersion

    outputter = make_outputter(build_bom(manifest), OutputFormat.JSON, SchemaVersion.V1_6)
    return str(outputter.output_as_string(indent=2)) + "\n"


def validate_cyclonedx_json(text: str) -> str | None:
    """Validate against the CycloneDX 1.6 JSON schema; None when valid, else the first error."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    return None if error is None else str(error)
