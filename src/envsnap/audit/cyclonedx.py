"""Applicable advisories as CycloneDX `vulnerabilities`, for `envsnap export cyclonedx`.

Each advisory that applies (status `affected`; a `possible` one is left out, since a BOM states
what is known) becomes one vulnerability: its id, the envsnap database as the source with the
upstream issue as its URL, one rating per reproduction target (method `other`: these are not
CVSS scores), the summary as description, the details, the fix as recommendation, the
workaround, and `affects` naming the BOM components of the affected packages (the run itself
when the package has no component of its own, e.g. torch known only from its CUDA stack).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envsnap.audit.facts import normalize
from envsnap.audit.render import fix
from envsnap.audit.results import AuditFinding

SOURCE_NAME = "envsnap advisory database"
# Library names of the CUDA stack's components, by the NVIDIA wheel that ships them.
_CUDA_STACK = {"nvidia-cudnn": "cudnn", "nvidia-cublas": "cublas", "nvidia-nccl": "nccl"}


def _component_ref(package: str, refs: set[str], root: str) -> str:
    name = normalize(package)
    if f"pkg:{name}" in refs:
        return f"pkg:{name}"
    library = _CUDA_STACK.get(name.rsplit("-cu", 1)[0])
    if library and f"cuda-stack:{library}" in refs:
        return f"cuda-stack:{library}"
    return root


def vulnerabilities(findings: Iterable[AuditFinding], refs: set[str], root: str) -> list[Any]:
    """cyclonedx `Vulnerability` objects for the findings that apply; `refs` are the BOM's
    component bom-refs and `root` the run's."""
    from cyclonedx.model import XsUri
    from cyclonedx.model.vulnerability import (
        BomTarget,
        Vulnerability,
        VulnerabilityRating,
        VulnerabilityScoreSource,
        VulnerabilitySeverity,
        VulnerabilitySource,
    )

    out = []
    for finding in findings:
        if finding.status != "affected":
            continue
        url = XsUri(finding.references[0]) if finding.references else None
        affected = sorted({_component_ref(name, refs, root) for name in finding.packages})
        out.append(
            Vulnerability(
                bom_ref=f"advisory:{finding.id}",
                id=finding.id,
                source=VulnerabilitySource(name=SOURCE_NAME, url=url),
                ratings=[
                    VulnerabilityRating(
                        source=VulnerabilitySource(name=f"{SOURCE_NAME}, target {target}"),
                        severity=VulnerabilitySeverity(severity),
                        method=VulnerabilityScoreSource.OTHER,
                    )
                    for target, severity in finding.severities.items()
                ],
                description=finding.summary,
                detail=finding.details,
                recommendation=fix(finding),
                workaround=finding.workaround,
                affects=[BomTarget(ref=ref) for ref in affected],
            )
        )
    return out
