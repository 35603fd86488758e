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
        # NVIDIA's pages, or a GitHub file pinned at a commit.
        for source in row.sources():
            assert source.startswith("https://docs.nvidia.com/") or re.fullmatch(
                r"https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/\S+", source
            ), row
        assert row.libraries(), f"{row.release} states nothing"
        # A second source names only fields the row states.
        assert {name for name, _ in row.cited} <= set(row.libraries()), row


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
    row = ngc_release("25.05")
    assert row is not None
    # Its NCCL and cuBLAS are not stated by any source here: absent, not guessed.
    assert row.libraries() == {"torch": "2.8.0a0+5228986c39", "cuda": "12.9.0", "cudnn": "9.10.1.4"}


def test_each_field_names_the_source_that_states_it() -> None:
    row = ngc_release("25.04")
    assert row is not None
    assert row.source_of("torch").startswith("https://docs.nvidia.com/")
    assert row.source_of("cudnn").endswith("/docker/common/install_tensorrt.sh")
    assert row.sources() == (row.source_of("torch"), row.source_of("cudnn"))
