"""The NGC PyTorch release table: sourced rows only, one per release, looked up by tag."""

from __future__ import annotations

import re

from envsnap.manifest.ngc_releases import NGC_PYTORCH_RELEASES, ngc_release


def test_every_row_is_a_release_with_a_source_and_a_stated_library() -> None:
    releases = [row.release for row in NGC_PYTORCH_RELEASES]
    assert len(set(releases)) == len(releases)
    assert releases == sorted(releases)
    for row in NGC_PYTORCH_RELEASES:
        assert re.fullmatch(r"\d\d\.\d\d", row.release), row
        # NVIDIA's pages, or a GitHub file pinned at a commit that prints the image's environment.
        assert row.source.startswith("https://docs.nvidia.com/") or re.fullmatch(
            r"https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/\S+", row.source
        ), row
        assert row.libraries(), f"{row.release} states nothing"


def test_a_release_is_found_by_its_number_or_its_tag() -> None:
    row = ngc_release("24.10-py3")
    assert row is not None and row.release == "24.10"
    assert row.torch == "2.5.0a0+e000cf0ad9"
    assert ngc_release("24.10") == row


def test_a_release_without_a_source_has_no_row() -> None:
    # 24.09 is a real release, but no source here states what it ships.
    assert ngc_release("24.09") is None
    assert ngc_release(None) is None and ngc_release("") is None


def test_libraries_lists_only_what_the_row_states() -> None:
    row = ngc_release("25.12")
    assert row is not None
    assert row.libraries() == {"torch": "2.10.0a0+b4e4ee81d3", "cuda": "13.1.0", "python": "3.12"}
