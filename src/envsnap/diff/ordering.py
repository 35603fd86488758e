"""The order of findings: a deterministic score on evidence, never the catalog's order.

Most severe for the target first; then a mechanism shown to act on the run (a setting that is
on, a kernel that runs) before a latent one (a capability, a default the job may not use); then
the more specific (a known bug window, then a named mechanism or default flip, then a generic
version change); then the larger effect (the objective itself, then precision, then summation
order; a major version step before a patch). Rule id and path only break exact ties.
"""

from __future__ import annotations

from dataclasses import dataclass

from envsnap.diff.report import SEVERITY_RANK, Category, Severity, Target

# Typical size of the effect, by kind of cause: what is optimized > precision (~1e-3) and
# random streams > summation order (~1e-7) > the environment around the run > bookkeeping.
EFFECT: dict[str, int] = {
    "semantics": 6,
    "data": 6,
    "code": 5,
    "precision": 4,
    "randomness": 3,
    "algorithm": 2,
    "hardware": 2,
    "stack": 2,
    "environment": 1,
    "noise": 0,
}
_EFFECT_TEXT: dict[int, str] = {
    6: "changes what is optimized",
    5: "can change anything the code does",
    4: "changes precision (TF32: ~1e-3 relative)",
    3: "changes random streams",
    2: "changes kernels and summation order",
    1: "rarely changes arithmetic",
    0: "cannot change results",
}
_SPECIFICITY_TEXT: dict[int, str] = {
    0: "generic difference",
    1: "named mechanism or default flip",
    2: "known bug window",
}


@dataclass(frozen=True)
class Standing:
    """What decides a finding's place."""

    severity: Severity
    active: bool
    specificity: int
    category: Category
    magnitude: int
    rule: str
    path: str

    def key(self) -> tuple[int, int, int, int, int, str, str]:
        return (
            -SEVERITY_RANK[self.severity],
            -int(self.active),
            -self.specificity,
            -EFFECT[self.category],
            -self.magnitude,
            self.rule,
            self.path,
        )

    def reason(self, target: Target) -> str:
        state = "active on the run" if self.active else "latent (not shown to act on the run)"
        return (
            f"{self.severity} for {target}; {state}; "
            f"{_SPECIFICITY_TEXT.get(self.specificity, 'specific')}; "
            f"effect: {_EFFECT_TEXT[EFFECT[self.category]]}"
        )
