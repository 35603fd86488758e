"""Build tags and version parts from real torch version strings (parsed with packaging)."""

from __future__ import annotations

import pytest

from envsnap.manifest.build_tags import build_tag, major_minor, parse_torch_version


@pytest.mark.parametrize(
    ("version", "cuda", "hip", "tag"),
    [
        # NGC PyTorch container 24.09 (torch.__version__ as the container prints it).
        ("2.5.0a0+b465a5843b.nv24.09", "12.6", None, "cu126"),
        # A source build: the local part is the short commit, not a tag.
        ("1.8.0a0+1606899", "11.1", None, "cu111"),
        ("1.8.0a0+1606899", None, None, "cpu"),
        ("2.6.0.dev20241001+cu124", "12.4", None, "cu124"),
        ("2.3.0+rocm6.0", None, "6.0.32830-d62f6a171", "rocm6.0"),
        ("2.4.0+cpu", None, None, "cpu"),
        ("2.1.0+cu118", "11.8", None, "cu118"),
        ("2.5.1+xpu", None, None, "xpu"),
        # torch 1.0 from conda: no local part; CUDA printed with its patch number.
        ("1.0.0", "9.0.176", None, "cu90"),
        ("2.1.0", None, "5.6.31061-8c743ae5d", "rocm5.6"),
        (None, None, None, None),
    ],
)
def test_build_tag_from_real_version_strings(
    version: str | None, cuda: str | None, hip: str | None, tag: str | None
) -> None:
    assert build_tag(version, cuda, hip) == tag


def test_ngc_version_parts() -> None:
    parts = parse_torch_version("2.5.0a0+b465a5843b.nv24.09")
    assert parts is not None
    assert (parts.public, parts.tag, parts.commit, parts.ngc_release) == (
        "2.5.0a0",
        None,
        "b465a5843b",
        "24.09",
    )
    assert parts.local == "b465a5843b.nv24.09"


def test_source_build_and_nightly_parts() -> None:
    source = parse_torch_version("1.8.0a0+1606899")
    nightly = parse_torch_version("2.6.0.dev20241001+cu124")
    assert source is not None and nightly is not None
    assert (source.commit, source.tag) == ("1606899", None)
    assert (nightly.public, nightly.nightly, nightly.tag, nightly.commit) == (
        "2.6.0.dev20241001",
        "20241001",
        "cu124",
        None,
    )


def test_not_a_version() -> None:
    assert parse_torch_version("Could not collect") is None
    assert build_tag("N/A", None, None) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9.0.176", "9.0"),
        ("12.4", "12.4"),
        ("11", "11.0"),
        ("6.0.32830-d62f6a171", "6.0"),
        ("N/A", None),
        (None, None),
    ],
)
def test_major_minor(text: str | None, expected: str | None) -> None:
    assert major_minor(text) == expected


# --- a source build's local version is a commit, not a CUDA build tag ----------------------
def test_git_prefixed_commit_is_read_as_the_commit() -> None:
    from envsnap.manifest.build_tags import is_build_tag, parse_torch_version

    parsed = parse_torch_version("2.1.0a0+git1234abc")
    assert parsed is not None and (parsed.tag, parsed.commit) == (None, "1234abc")
    assert not is_build_tag("git1234abc") and not is_build_tag("1606899")
    assert is_build_tag("cu121") and is_build_tag("rocm6.0")


def test_two_source_builds_differ_by_commit_not_by_cuda_build() -> None:
    from envsnap.diff.versions import local_tag, step

    assert step("1.8.0a0+1606899", "1.8.0a0+13decdd") == "commit"
    assert step("2.1.0a0+git1234abc", "2.1.0a0+git9876fed") == "commit"
    assert step("2.1.0+cu118", "2.1.0+cu121") == "local"
    assert local_tag("1.8.0a0+1606899") is None and local_tag("2.1.0+cu121") == "cu121"


def test_source_build_commits_are_not_a_cuda_build_finding() -> None:
    from envsnap.diff import diff_documents
    from tests.helpers.manifests import full_pair

    a, b = full_pair()
    for doc, version in ((a, "2.3.0a0+git1234abc"), (b, "2.3.0a0+git9876fed")):
        doc["packages"]["installed"]["torch"]["version"] = version
        doc["cuda_stack"]["torch_version"] = version
        doc["torch"]["version"] = version
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert "stack.torch" in rules
    assert "stack.cuda-build" not in rules and "precision.tf32-library" not in rules
