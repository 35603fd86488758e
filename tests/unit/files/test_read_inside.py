"""Reading inside a folder: real files, links and pipes in a tmp dir; no link is followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envsnap.errors import EnvsnapError
from envsnap.files.reader import entries_inside, read_inside

SECRET = "machine example.com password hunter2"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """run/ with a file, a sub-folder, a link out, a folder link out, a link inside, a FIFO."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "netrc").write_text(SECRET)
    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "sub" / "kept.txt").write_text("kept")
    (run / "out.txt").symlink_to(outside / "netrc")
    (run / "outdir").symlink_to(outside)
    (run / "inside.txt").symlink_to(run / "sub" / "kept.txt")
    os.mkfifo(run / "pipe")
    return run


def test_reads_a_regular_file_below_the_folder(folder: Path) -> None:
    assert read_inside(folder, "sub/kept.txt", "a file") == b"kept"


@pytest.mark.parametrize("relative", ["out.txt", "outdir/netrc", "inside.txt"])
def test_refuses_every_link_below_the_folder(folder: Path, relative: str) -> None:
    with pytest.raises(EnvsnapError, match="a symbolic link; links inside the folder"):
        read_inside(folder, relative, "a file")


@pytest.mark.parametrize("relative", ["../outside/netrc", "/etc/hostname", "sub//kept.txt"])
def test_refuses_a_path_that_is_not_plain(folder: Path, relative: str) -> None:
    with pytest.raises(EnvsnapError, match="not a plain path inside the folder"):
        read_inside(folder, relative, "a file")


def test_refuses_a_pipe_without_blocking(folder: Path) -> None:
    with pytest.raises(EnvsnapError, match="is a pipe, socket or device"):
        read_inside(folder, "pipe", "a file")


def test_refuses_a_file_over_its_cap(folder: Path) -> None:
    with pytest.raises(EnvsnapError, match="larger than 3 bytes"):
        read_inside(folder, "sub/kept.txt", "a file", max_bytes=3)


def test_lists_links_as_links(folder: Path) -> None:
    assert entries_inside(folder) == {
        "inside.txt": "link",
        "out.txt": "link",
        "outdir": "link",
        "pipe": "other",
        "sub": "dir",
    }
    assert entries_inside(folder, "sub") == {"kept.txt": "file"}
    with pytest.raises(EnvsnapError, match="a symbolic link"):
        entries_inside(folder, "outdir")


def test_listing_stops_at_its_cap(folder: Path) -> None:
    with pytest.raises(EnvsnapError, match="more than 2 entries"):
        entries_inside(folder, max_entries=2)
