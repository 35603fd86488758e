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


def test_show_summarises_the_probe_and_names_a_nondeterministic_op(  # type: ignore[no-untyped-def]
    run_cli, tmp_path
) -> None:
    import json

    from envsnap.manifest.canonical import pretty_text
    from envsnap.manifest.model import manifest_from_document

    path = FIXTURES / "probe" / "torch-versions" / "torch-2.13.0+cpu.json"
    result = run_cli("show", str(path))
    assert result.code == 0, result.err
    assert "envsnap-probe/2: cpu 19/21 ops in" in result.out
    document = json.loads(path.read_text())
    document["probe"]["devices"]["cpu"]["ops"]["index_add"]["repeat_equal"] = False
    changed = tmp_path / "changed.json"
    changed.write_text(pretty_text(manifest_from_document(document, "t").sealed().to_document()))
    assert "nondeterministic: index_add" in run_cli("show", str(changed)).out
