"""What every part of the collect_env mapping shares: the parsed report, the output, the rules
for "stated" versus "Could not collect"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envsnap.capturing.redact import Redactor
from envsnap.interop.importers.base import Imported

FORMAT = "collect-env"
COULD_NOT_COLLECT = "collect_env report: Could not collect"
NO_CUDA = "collect_env report: No CUDA"
_NOT_VALUES = ("", "Could not collect", "No CUDA")


@dataclass
class Report:
    """A collect_env report as printed: raw values by key, and the multi-line blocks."""

    values: dict[str, str] = field(default_factory=dict)
    blocks: dict[str, list[str]] = field(default_factory=dict)
    packages: list[tuple[str, str]] = field(default_factory=list)


def as_bool(value: str | None) -> bool | None:
    """Yes/No (before torch 1.7) and True/False (after) as a bool; None for anything else."""
    if value is None:
        return None
    return {"yes": True, "true": True, "no": False, "false": False}.get(value.strip().lower())


def is_na(value: str) -> bool:
    """'N/A' or 'None': the report says the field does not apply (not that it is unknown)."""
    return value.strip().lower() in ("n/a", "none")


@dataclass
class Reading:
    """One report being mapped onto an `Imported`."""

    report: Report
    redactor: Redactor
    out: Imported = field(default_factory=lambda: Imported(format=FORMAT))

    def value(self, key: str) -> str | None:
        """The raw value, or None when the report does not print the line at all."""
        return self.report.values.get(key)

    def stated(self, key: str) -> str | None:
        """The value when it states something: not absent, N/A, "Could not collect", "No CUDA"."""
        raw = self.value(key)
        if raw is None or raw in _NOT_VALUES or is_na(raw):
            return None
        return raw

    def known(self, section: str, name: str, key: str) -> str | None:
        """A value that is stated; records why when it is missing or "Could not collect"."""
        raw = self.value(key)
        if raw is None:
            self.out.put_unknown(section, name)
            return None
        if raw in ("", "Could not collect"):
            self.out.put_unknown(section, name, COULD_NOT_COLLECT)
            return None
        if raw == "No CUDA":
            self.out.put_unknown(section, name, NO_CUDA)
            return None
        return raw

    def fact(self, name: str, value: Any) -> None:
        """A stated fact that no section field holds."""
        if value is not None and value != "Could not collect":
            self.out.facts[name] = value
