"""SARIF 2.1.0 output, for code-scanning dashboards.

One rule per advisory that applies somewhere, one result per (manifest, advisory). The
location is the manifest file; the level follows the severity for the chosen target
(critical/high -> error, medium -> warning, low/info -> note).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from envsnap._version import __version__
from envsnap.audit.database import Database
from envsnap.audit.render import fix, why
from envsnap.audit.results import AuditFinding, AuditResult
from envsnap.render.escape import terminal_text

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}


def _rule(finding: AuditFinding) -> dict[str, Any]:
    return {
        "id": finding.id,
        "name": finding.id.replace("-", ""),
        "shortDescription": {"text": terminal_text(finding.summary)},
        "fullDescription": {"text": terminal_text(finding.details)},
        "help": {
            "text": terminal_text(f"{fix(finding)} References: {' '.join(finding.references)}")
        },
        "helpUri": finding.references[0] if finding.references else None,
        "properties": {"tags": ["reproducibility", finding.category], **finding.severities},
    }


def _result(result: AuditResult, finding: AuditFinding, index: int) -> dict[str, Any]:
    prefix = "" if finding.status == "affected" else "possibly: "
    fingerprint = hashlib.sha256(f"{result.source}\0{finding.id}".encode()).hexdigest()
    return {
        "ruleId": finding.id,
        "ruleIndex": index,
        "level": _LEVEL[finding.severity],
        "kind": "fail" if finding.status == "affected" else "review",
        "message": {"text": terminal_text(f"{prefix}{finding.summary} ({why(finding)})")},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": result.source.replace("\\", "/")},
                    "region": {"startLine": 1},
                }
            }
        ],
        "partialFingerprints": {"envsnapAdvisory/v1": fingerprint},
    }


def render_sarif(results: Iterable[AuditResult], database: Database) -> str:
    rules: dict[str, dict[str, Any]] = {}
    order: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    for result in results:
        for finding in result.findings:
            if finding.id not in rules:
                order[finding.id] = len(rules)
                rules[finding.id] = {k: v for k, v in _rule(finding).items() if v is not None}
            out.append(_result(result, finding, order[finding.id]))
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "envsnap audit",
                        "version": __version__,
                        "informationUri": "https://github.com/envsnap/envsnap",
                        "rules": list(rules.values()),
                        "properties": {"database": database.source},
                    }
                },
                "results": out,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
