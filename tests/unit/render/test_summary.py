"""`envsnap show`: the readable summary of a manifest."""

from __future__ import annotations

from tests.helpers import FIXTURES


def test_show_summarises_the_run_sections(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("show", str(FIXTURES / "manifests" / "full.json"))
    assert result.code == 0, result.err
    for fact in (
        "A100-SXM4-80GB (sm 8.0)",
        "cudnn 8.9.2.26",
        "micro_batch_size 8 x dp_size 8",
        "master seed 1234",
        "GPT2TokenizerFast",
    ):
        assert fact in result.out, fact
