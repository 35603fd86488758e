"""An audio or video decoder decides the samples a loader returns: a preprocessing change."""

from __future__ import annotations

from typing import Any

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair, install


def _first(a: dict[str, Any], b: dict[str, Any], path: str) -> tuple[int, str, str]:
    finding = next(f for f in diff_documents(a, b, target="close").findings if f.path == path)
    return finding.rank, finding.rule, finding.severity


def test_a_decoder_installed_beside_a_framework_upgrade_ranks_first() -> None:
    # datasets 4.0 decodes audio with torchcodec where 3.x used soundfile: the decoder that
    # appeared is the narrower cause of other samples than the framework release.
    a, b = full_pair()
    for side in (a, b):
        install(side, "datasets", "3.6.0")
    b["packages"]["installed"]["datasets"]["version"] = "4.0.0"
    install(b, "torchcodec", "0.4.0")
    assert _first(a, b, "packages.installed.torchcodec") == (1, "stack.preprocessing", "high")
    assert _first(a, b, "packages.installed.datasets.version")[1] == "stack.framework"


def test_each_decoder_and_resampler_version_is_a_preprocessing_change() -> None:
    for name in ("soundfile", "audioread", "av", "decord", "soxr", "resampy"):
        a, b = full_pair()
        install(a, name, "1.0.0")
        install(b, name, "1.1.0")
        path = f"packages.installed.{name}.version"
        assert _first(a, b, path)[1:] == ("stack.preprocessing", "high"), name


def test_a_torchcodec_release_beside_a_torch_release_is_the_torch_familys() -> None:
    # torchcodec's releases follow torch's: a bump beside torch is that release's finding.
    a, b = full_pair()
    install(a, "torchcodec", "0.2.1")
    install(b, "torchcodec", "0.3.0")
    b["packages"]["installed"]["torch"]["version"] = "2.7.0"
    findings = diff_documents(a, b, target="close").findings
    assert not [f for f in findings if f.rule == "stack.preprocessing"]
    title = next(f.title for f in findings if f.rule == "stack.torch")
    assert "; with it: torchcodec 0.2.1 → 0.3.0" in title
