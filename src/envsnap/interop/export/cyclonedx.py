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

import json
import re
import textwrap
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.manifest.lean import LeanManifest, as_lean
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


def build_bom(manifest: Manifest | LeanManifest) -> Any:
    """The cyclonedx `Bom` of a manifest, less its installed packages: `to_cyclonedx_json`
    writes those itself (see `_with_packages`)."""
    _require()
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.component import Component, ComponentType

    lean = as_lean(manifest)
    document = lean.document
    components = [
        *_gpu_components(document.get("gpu") or {}),
        *_stack_components(document.get("cuda_stack") or {}),
        *_os_components(document.get("system") or {}),
        *_data_components(document.get("data") or {}),
    ]
    code = document.get("code") or {}
    root = Component(
        type=ComponentType.APPLICATION,
        name=lean.manifest.run.label or "training-run",
        version=(code.get("commit") or "")[:12] or None,
        bom_ref="run",
    )
    bom = Bom(serial_number=uuid.uuid5(_SERIAL_NAMESPACE, lean.digest()), components=components)
    bom.metadata.component = root
    # The run depends on everything it recorded; this also completes the dependency graph.
    bom.register_dependency(root, components)
    bom.metadata.timestamp = lean.manifest.created_at
    refs = {str(c.bom_ref) for c in components} | {_PACKAGE_REF + key for key in lean.installed}
    _add_advisories(bom, document, refs, str(root.bom_ref))
    for prop in _props(iter(_run_settings(lean, document))):
        bom.metadata.properties.add(prop)
    return bom


def _props(pairs: Iterator[tuple[str, str]]) -> list[Any]:
    from cyclonedx.model import Property

    return [Property(name=_PROPERTY_PREFIX + key, value=value) for key, value in pairs]


# --- installed packages, written without the library --------------------------------------
#
# cyclonedx-python-lib builds, sorts and serialises a model object per component: about
# 0.7 ms each, so 200k packages took minutes and gigabytes. A package is a `library`
# component of five fields; its JSON is written here as the library writes it (same keys,
# order, escaping and indentation; a test compares the two), and merged into the library's
# output in the library's component order.

_PACKAGE_REF = "pkg:"
# Names and versions that package-url leaves as they are (lowercase, no `_`, only characters
# percent-encoding keeps); anything else goes through packageurl itself.
_PLAIN_NAME = re.compile(r"[a-z0-9.-]+")
_PLAIN_VERSION = re.compile(r"[A-Za-z0-9._~-]+")
_TEXT = json.encoder.encode_basestring_ascii  # what json.dumps writes for a string


def _purl(name: str, version: str | None) -> str:
    if _PLAIN_NAME.fullmatch(name) and (version is None or _PLAIN_VERSION.fullmatch(version)):
        return f"pkg:pypi/{name}" + (f"@{version}" if version else "")
    from packageurl import PackageURL

    return str(PackageURL(type="pypi", name=name, version=version).to_string())


# The package fields that become properties, in the library's (sorted) property order.
_PACKAGE_PROPERTIES = ("installer", "source")
_PROPERTY_NAME = {field: _TEXT(_PROPERTY_PREFIX + field) for field in _PACKAGE_PROPERTIES}


def _package_text(key: str, package: Mapping[str, Any]) -> str:
    """One package's component, as the library writes it at depth two of the BOM."""
    version = package.get("version")
    props = ",\n".join(
        f'        {{\n          "name": {_PROPERTY_NAME[field]},\n'
        f'          "value": {_TEXT(str(value))}\n        }}'
        for field in _PACKAGE_PROPERTIES
        if (value := package.get(field))
    )
    return "".join(
        (
            f'    {{\n      "bom-ref": {_TEXT(_PACKAGE_REF + key)},\n      "name": {_TEXT(key)},\n',
            f'      "properties": [\n{props}\n      ],\n' if props else "",
            f'      "purl": {_TEXT(_purl(key, version))},\n      "type": "library"',
            f',\n      "version": {_TEXT(version)}\n    }}' if version is not None else "\n    }",
        )
    )


def _library_order(component: Mapping[str, Any]) -> tuple[Any, ...]:
    """The library's component order (type, name, version with none last, bom-ref): its
    other keys never decide here, bom-refs being unique."""
    version = component.get("version")
    return (
        component["type"],
        component.get("name", ""),
        version is None,
        version or "",
        component.get("bom-ref", ""),
    )


def _with_packages(
    bom: dict[str, Any], installed: Mapping[str, Mapping[str, Any]]
) -> Iterator[str]:
    """The JSON text of the library's BOM document with the packages added (as components,
    in the run's dependencies, as entries of the dependency graph), in pieces: each package's
    text is made when it is written, never all of them at once."""
    components = bom.get("components", [])
    order: list[tuple[tuple[Any, ...], int | str]] = [
        (_library_order(c), index) for index, c in enumerate(components)
    ]
    order += [
        (("library", key, entry.get("version") is None, entry.get("version") or "", ref), key)
        for key, entry in installed.items()
        for ref in (_PACKAGE_REF + key,)
    ]
    order.sort(key=lambda item: item[0])
    refs = sorted(_PACKAGE_REF + key for key in installed)
    graph = {entry["ref"]: entry.get("dependsOn") for entry in bom.get("dependencies", [])}
    if refs:
        graph["run"] = sorted([*(graph.get("run") or ()), *refs])
        graph.update((ref, None) for ref in refs)
    # Both lists are slots in the library's document (they sort first among its keys), named
    # by a token chosen now: no value read from the manifest can spell it in advance.
    slot = f"slot-{uuid.uuid4().hex}"
    lists = {
        "components": (
            _indented(components[at], 4)
            if isinstance(at, int)
            else _package_text(at, installed[at])
            for _, at in order
        ),
        "dependencies": (_dependency_text(ref, graph[ref]) for ref in sorted(graph)),
    }
    present = [key for key, size in (("components", order), ("dependencies", graph)) if size]
    document = {
        **{key: f"{slot}-{key}" for key in present},
        **{key: value for key, value in bom.items() if key not in present},
    }
    text = json.dumps(document, indent=2)
    for key in present:
        head, _, text = text.partition(_TEXT(f"{slot}-{key}"))
        yield head + "[\n"
        for position, piece in enumerate(lists[key]):
            yield (",\n" if position else "") + piece
        yield "\n  ]"
    yield text + "\n"


def _indented(value: Any, depth: int) -> str:
    """`value` as json.dumps(indent=2) writes it `depth` spaces deep."""
    return textwrap.indent(json.dumps(value, indent=2), " " * depth)


def _dependency_text(ref: str, depends: list[str] | None) -> str:
    if not depends:
        return f'    {{\n      "ref": {_TEXT(ref)}\n    }}'
    items = ",\n".join(f"        {_TEXT(d)}" for d in depends)
    return f'    {{\n      "dependsOn": [\n{items}\n      ],\n      "ref": {_TEXT(ref)}\n    }}'


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


def _run_settings(lean: LeanManifest, document: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's own facts as BOM metadata properties: digest, code state, result settings."""
    settings: list[tuple[str, str]] = [
        ("digest", lean.manifest.digest or ""),
        ("schema_version", lean.manifest.schema_version),
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


def to_cyclonedx_json(manifest: Manifest | LeanManifest) -> str:
    """Serialise a manifest as CycloneDX 1.6 JSON text."""
    return "".join(cyclonedx_pieces(manifest))


def cyclonedx_pieces(manifest: Manifest | LeanManifest) -> Iterator[str]:
    """`to_cyclonedx_json`'s text in pieces, for writing as they are made."""
    from cyclonedx.output import make_outputter
    from cyclonedx.schema import OutputFormat, SchemaVersion

    lean = as_lean(manifest)
    outputter = make_outputter(build_bom(lean), OutputFormat.JSON, SchemaVersion.V1_6)
    return _with_packages(json.loads(outputter.output_as_string()), lean.installed)


def validate_cyclonedx_json(text: str) -> str | None:
    """Validate against the CycloneDX 1.6 JSON schema; None when valid, else the first error."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    return None if error is None else str(error)
