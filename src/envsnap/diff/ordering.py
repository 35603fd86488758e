"""The order of findings: a deterministic score on evidence, never the catalog's order.

First what a finding rests on: a difference the records state or imply and expect to change
results comes before a risk both sides share; then what is not expected to change results (a
difference or a risk at info for the target); then a note about what is not recorded, whatever
its severity; bookkeeping, which cannot change results, comes last. Within each group: most
severe for the target first; then a mechanism the numerics probe confirms (its op family
computed other bits) before one it did not measure, and that before one it ruled out; then a
mechanism shown to act on the run (a setting that is on, a kernel that runs) before a latent
one (a capability, a default the job may not use); then the larger effect
on the target (`EFFECT`, docs/diff.md); then the more severe for the stricter targets (of two
findings low for close, the one high for bitwise changes more bits: an NCCL release before a
driver patch or an unrelated package); then a stated fact before an inferred one; then, within
one kind of effect only, the more specific (a known bug window, then a named mechanism or default
flip, then a generic version change) and the larger step (a major version before a patch). Rule
id and path only break exact ties.
"""

from __future__ import annotations

from dataclasses import dataclass

from envsnap.diff.report import SEVERITY_RANK, Basis, Category, Severity, Target

# What a finding rests on, in the order of the report (bookkeeping, category noise, after all).
_BASIS_GROUP: dict[Basis, int] = {"stated": 0, "inferred": 0, "shared": 1, "unknown": 2}
_BOOKKEEPING_GROUP = 3
# Where a finding's kind puts it in the report: a difference expected to change results, then
# a risk both sides share, then what is not expected to change results (a difference or a risk
# at info), then a note, then bookkeeping. A shared risk says what may explain a disagreement
# that no difference explains; a difference at info says it explains nothing.
_PLACE_TEXT: dict[int, str] = {
    0: "a difference",
    1: "a risk both sides share (after every difference above info)",
    2: "not expected to change results (after every difference and shared risk above info)",
    3: "a note about what is not recorded (after every difference and shared risk)",
    4: "bookkeeping (after everything else)",
}

# Effect of a kind of cause on each target, larger first (numerics.md rules 1, 2 and 6; the
# reasoning per row is in docs/diff.md). What is optimized outranks everything; a precision mode
# moves errors by orders of magnitude (~1e-3 relative per TF32 GEMM) and a new random stream
# moves every draw, both above a kernel or summation order (~ULP, ~2e-4 for a cuDNN heuristic);
# a code change says that the code moved, not what it computes, so it follows every named
# mechanism; the environment around the run rarely reaches the arithmetic. For bitwise a random
# stream outranks precision: a seed changes every draw from the first, a precision mode only the
# ops it governs.
_CLOSE: dict[Category, int] = {
    "semantics": 6,
    "data": 6,
    "precision": 5,
    "randomness": 4,
    "algorithm": 3,
    "hardware": 3,
    "stack": 3,
    "code": 2,
    "environment": 1,
    "noise": 0,
}
# The targets stricter than each target, the nearest first: their severities grade the effect
# of findings equally severe for the target itself.
STRICTER: dict[Target, tuple[Target, ...]] = {
    "bitwise": (),
    "close": ("bitwise",),
    "conclusion": ("close", "bitwise"),
}
EFFECT: dict[Target, dict[Category, int]] = {
    "bitwise": {**_CLOSE, "precision": 4, "randomness": 5},
    "close": _CLOSE,
    "conclusion": _CLOSE,
}
_EFFECT_TEXT: dict[Category, str] = {
    "semantics": "changes what is optimized",
    "data": "changes what is optimized",
    "precision": "changes precision (TF32: ~1e-3 relative)",
    "randomness": "changes random streams",
    "algorithm": "changes kernels and summation order",
    "hardware": "changes kernels and summation order",
    "stack": "changes kernels and summation order",
    "code": "changes code, not said how",
    "environment": "rarely changes arithmetic",
    "noise": "cannot change results",
}
_SPECIFICITY_TEXT: dict[int, str] = {
    0: "generic difference",
    1: "named mechanism or default flip",
    2: "known bug window",
}


def basis_group(basis: Basis, category: Category) -> int:
    """0 for a difference, 1 for a shared risk, 2 for a note, 3 for bookkeeping."""
    return _BOOKKEEPING_GROUP if category == "noise" else _BASIS_GROUP[basis]


def report_place(basis: Basis, category: Category, severity: Severity) -> int:
    """0 a difference above info, 1 a shared risk above info, 2 either at info, 3 a note,
    4 bookkeeping (_PLACE_TEXT)."""
    group = basis_group(basis, category)
    if group <= 1:
        return 2 if severity == "info" else group
    return group + 1


@dataclass(frozen=True)
class Standing:
    """What decides a finding's place."""

    basis: Basis
    severity: Severity
    active: bool
    specificity: int
    category: Category
    magnitude: int
    rule: str
    path: str
    target: Target = "close"
    measured: int = 0  # 1 confirmed by the probe, -1 ruled out by it, 0 not measured
    stricter: tuple[Severity, ...] = ()  # the severities for STRICTER[target], in that order
    # The kind of effect of the ways the cause acts at its severity (a GPU change acting
    # through TF32 changes precision); None: the category's own.
    effect: Category | None = None

    @property
    def effect_kind(self) -> Category:
        return self.effect or self.category

    def key(self) -> tuple[int, int, int, int, int, tuple[int, ...], int, int, int, str, str]:
        # The place in the report first (_PLACE_TEXT), then evidence within it.
        return (
            report_place(self.basis, self.category, self.severity),
            -SEVERITY_RANK[self.severity],
            -self.measured,
            -int(self.active),
            -EFFECT[self.target][self.effect_kind],
            tuple(-SEVERITY_RANK[severity] for severity in self.stricter),
            # A fact the records state before one inferred from them (a cuDNN version read
            # off the wheel's build follows the build change it comes from).
            int(self.basis == "inferred"),
            # Specificity and step size order findings of one kind of effect only: a rule that
            # states no specificity never loses to another kind's for lack of the value.
            -self.specificity,
            -self.magnitude,
            self.rule,
            self.path,
        )

    def reason(self, target: Target) -> str:
        group = basis_group(self.basis, self.category)
        place = report_place(self.basis, self.category, self.severity)
        head = f"{_PLACE_TEXT[place]}; {self.severity} for {target}"
        if group in (1, 2):  # a shared risk or a note: nothing acts, nothing is specific
            return f"{head}; effect: {_EFFECT_TEXT[self.effect_kind]}"
        state = "active on the run" if self.active else "latent (not shown to act on the run)"
        if self.measured:
            state += "; confirmed by the probe" if self.measured > 0 else "; ruled out by the probe"
        return (
            f"{head}; {state}; effect: {_EFFECT_TEXT[self.effect_kind]}; "
            f"{_SPECIFICITY_TEXT.get(self.specificity, 'specific')}"
        )
