"""Fields added to the manifest after its first release are left out of a document while unset,
so a manifest written before them still re-seals to its own digest."""

from __future__ import annotations

from typing import Any


def omit_unset_additions(document: dict[str, Any]) -> None:
    """Drop, in place, the later additions that are unset: `packages.installed.*.hashes`
    (empty), `packages.installed.*.imported` (null), `packages.conda.*.channel` (null),
    `code.patch` and `code.untracked_python` (null), `torch.cpu` and `torch.compiled` (null),
    `precision.params_device` (null), `placement` and `probe` (null)."""
    packages = document.get("packages")
    if isinstance(packages, dict):
        for package in (packages.get("installed") or {}).values():
            if isinstance(package, dict) and not package.get("hashes"):
                package.pop("hashes", None)
            if isinstance(package, dict) and package.get("imported") is None:
                package.pop("imported", None)
        for record in (packages.get("conda") or {}).values():
            if isinstance(record, dict) and record.get("channel") is None:
                record.pop("channel", None)
    code = document.get("code")
    if isinstance(code, dict):
        for field in ("patch", "untracked_python"):
            if code.get(field) is None:
                code.pop(field, None)
    torch = document.get("torch")
    if isinstance(torch, dict):
        for field in ("cpu", "compiled"):
            if torch.get(field) is None:
                torch.pop(field, None)
    precision = document.get("precision")
    if isinstance(precision, dict) and precision.get("params_device") is None:
        precision.pop("params_device", None)
    for section in ("placement", "probe"):
        if section in document and document[section] is None:
            document.pop(section)
