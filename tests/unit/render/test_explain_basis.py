"""`--explain` says, for the top findings, which facts were stated and which inferred."""

from __future__ import annotations

from envsnap.diff.derived import Hit
from envsnap.diff.rank import build_report
from envsnap.render.findings import render_markdown, render_table

FROM_DEFAULTS = "torch 1.10 defaults (allow_tf32 default True in 1.7-1.11)"


def _report():  # type: ignore[no-untyped-def]
    inferred = Hit(
        "precision.tf32-effective",
        "torch.effective.matmul_fp32.tf32",
        "yes",
        "no",
        inferred=FROM_DEFAULTS,
    )
    stated = Hit("precision.tf32-matmul", "torch.matmul.allow_tf32", None, False)
    dirty = Hit("code.dirty", "code.dirty", False, True)
    return build_report([inferred, stated, dirty], target="close")


def test_the_table_names_each_fact_stated_or_inferred_only_when_asked() -> None:
    report = _report()
    plain = render_table(report, color=False, width=200)
    assert "basis:" not in plain
    text = render_table(report, color=False, width=200, explain=True)
    tf32 = next(line for line in text.splitlines() if "basis:" in line and "inferred" in line)
    assert "basis: a difference the records state" in tf32
    assert f"inferred: {FROM_DEFAULTS} at torch.effective.matmul_fp32.tf32" in tf32
    assert "stated: torch.matmul.allow_tf32 (B only)" in tf32
    dirty = [line for line in text.splitlines() if "stated: code.dirty (both sides)" in line]
    assert len(dirty) == 1


def test_markdown_lists_what_the_top_findings_rest_on() -> None:
    text = render_markdown(_report(), explain=True)
    assert "**What the top findings rest on**" in text
    assert f"inferred: {FROM_DEFAULTS} at `torch.effective.matmul_fp32.tf32`" in text
    assert "**What the top findings rest on**" not in render_markdown(_report())
