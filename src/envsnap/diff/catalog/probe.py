"""Rules for the numerics probe's record (diff/probe_evidence.py applies what it measured)."""

from __future__ import annotations

from envsnap.diff.rules import Rule

PROBE_DOC = "docs/probe.md"

RULES: tuple[Rule, ...] = (
    Rule(
        id="probe.numerics",
        match=("probe.devices.*.ops.**",),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="measured: an op family computes other bits (probe)",
        why="the probe ran the same ops on the same inputs on both sides and the output bits "
        "differ: this stack computes that op family differently, whatever the records say. "
        "When a recorded difference acts through that family, it carries this as evidence "
        "instead.",
        fix="Look for what the records do not hold (a library loaded from elsewhere, a "
        "variable set outside the job, the GPU's clocks or firmware); envsnap bisect can test "
        "what they do hold.",
        refs=(PROBE_DOC,),
        derived=True,
        per="component",
    ),
    Rule(
        id="noise.probe",
        match=(
            "probe.{elapsed_ms,torch}",
            "probe.devices.*.{elapsed_ms,name,capability,threads,reason}",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="probe bookkeeping differs",
        why="how long the probe took, and the device, thread count and torch version it "
        "repeats from the sections that record them, are not results.",
        fix="None needed.",
        refs=(PROBE_DOC,),
    ),
    Rule(
        id="probe.incomparable",
        match=("probe.suite", "probe.devices.*", "probe.devices.*.status"),
        category="environment",
        severity=("low", "low", "low"),
        title="probes cannot be compared here",
        why="another suite version, or a device one side did not probe (or could not), "
        "measures nothing for the other side to match.",
        fix="Capture both sides with the same envsnap and the same devices.",
        refs=(PROBE_DOC,),
    ),
)
