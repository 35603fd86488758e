"""Pinned package lists as W&B and MLflow store them: requirements.txt, conda.yaml, python_env.yaml.

Only exact pins (`name==version`) say which version ran; a range (`numpy>=1.20`) or an unpinned
name says nothing about it, so those are listed as unknown rather than given a version.
"""

from __future__ import annotations

import re
from typing import Any

from envsnap.capturing.redact import Redactor

_PIN_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*(?P<version>[^\s;#]+)"
)
_NAME_RE = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")


def parse_requirements(
    text: str, redactor: Redactor
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Packages pinned in a requirements file, and the names listed without an exact pin.

    Options (`-r`, `--index-url`), comments and blank lines are skipped; `name @ url` lines keep
    their URL, credentials removed.
    """
    from envsnap.capturing.collectors.packages import canonical_name

    installed: dict[str, dict[str, Any]] = {}
    unpinned: list[str] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        if " @ " in line:
            name, _, url = line.partition(" @ ")
            installed[canonical_name(name.strip())] = {
                "name": name.strip(),
                "url": redactor.redact_url(url.strip()),
            }
            continue
        pin = _PIN_RE.match(line)
        if pin:
            installed[canonical_name(pin["name"])] = {
                "name": pin["name"],
                "version": pin["version"],
            }
            continue
        name_match = _NAME_RE.match(line)
        if name_match:
            unpinned.append(canonical_name(name_match["name"]))
    return dict(sorted(installed.items())), sorted(set(unpinned))


def conda_python_and_pip(document: Any) -> tuple[str | None, list[str]]:
    """`python=3.11.7` and the `pip:` list from an MLflow conda.yaml document."""
    python: str | None = None
    pip: list[str] = []
    dependencies = document.get("dependencies") if isinstance(document, dict) else None
    for item in dependencies if isinstance(dependencies, list) else []:
        if isinstance(item, str) and re.match(r"^python\s*=", item):
            python = item.split("=", 1)[1].strip().lstrip("=") or None
        elif isinstance(item, dict) and isinstance(item.get("pip"), list):
            pip.extend(str(entry) for entry in item["pip"])
    return python, pip
