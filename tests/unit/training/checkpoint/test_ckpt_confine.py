"""Checkpoint audits stay inside the checkpoint: hostile DCP metadata (paths outside, /dev/zero,
a named pipe, negative lengths) and a zip bomb in data.pkl are refused, never followed."""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import time
import warnings
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
dcp = pytest.importorskip("torch.distributed.checkpoint")

from envsnap.errors import EnvsnapError  # noqa: E402
from envsnap.training.checkpoint import inspect_checkpoint  # noqa: E402


def _save(directory: Path) -> Path:
    state = {"model": torch.nn.Linear(4, 2).state_dict(), "step": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save(state, storage_writer=dcp.FileSystemWriter(str(directory), thread_count=1))
    return directory


def _point_first_shard(directory: Path, **changes: object) -> None:
    """Rewrite .metadata so its first stored item has other path/offset/length values."""
    with open(directory / ".metadata", "rb") as handle:
        metadata = pickle.load(handle)  # our own file, written just above by dcp.save
    first = next(iter(metadata.storage_data))
    metadata.storage_data[first] = dataclasses.replace(metadata.storage_data[first], **changes)
    with open(directory / ".metadata", "wb") as handle:
        pickle.dump(metadata, handle)


def _outside(tmp_path: Path) -> str:
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"x" * 4096)
    return "../secret.bin"


def _fifo(directory: Path) -> str:
    os.mkfifo(directory / "pipe.distcp")
    return "pipe.distcp"


HOSTILE = {
    "outside (relative)": lambda d, t: {"relative_path": _outside(t)},
    "outside (absolute)": lambda d, t: {"relative_path": "/etc/passwd"},
    "/dev/zero": lambda d, t: {"relative_path": "/dev/zero", "length": -1},
    "negative length": lambda d, t: {"length": -1},
    "negative offset": lambda d, t: {"offset": -5},
    "fifo": lambda d, t: {"relative_path": _fifo(d)},
    "nested escape": lambda d, t: {"relative_path": "a/../../secret.bin"},
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_dcp_metadata_is_reported_not_followed(case: str, tmp_path: Path) -> None:
    directory = _save(tmp_path / "ckpt")
    _point_first_shard(directory, **HOSTILE[case](directory, tmp_path))
    started = time.monotonic()
    report = inspect_checkpoint(directory)
    assert time.monotonic() - started < 30
    rules = {f.rule for f in report.findings}
    assert "dcp.shard.outside" in rules, rules


def _zip_bomb(path: Path) -> None:
    """A torch-style archive whose data.pkl inflates to 300 MiB (past the 256 MiB cap) from
    about 300 KiB."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/version", "3\n")
        with archive.open("archive/data.pkl", "w", force_zip64=True) as member:
            block = bytes(1024 * 1024)
            for _ in range(300):
                member.write(block)


def test_a_zip_bomb_in_data_pkl_is_refused_before_inflating(tmp_path: Path) -> None:
    bomb = tmp_path / "model.pt"
    _zip_bomb(bomb)
    assert bomb.stat().st_size < 8 * 1024 * 1024
    with pytest.raises(EnvsnapError, match="zip bomb"):
        inspect_checkpoint(bomb)


def test_a_stored_record_claiming_more_than_the_file_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buffer)
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith("data.pkl"))
    # Patch the central directory's uncompressed size of data.pkl to 2 GiB.
    # The central directory entry (46 fixed bytes, then the name) is the last copy of it.
    at = data.rfind(info.filename.encode()) - 46
    assert data[at : at + 4] == b"PK\x01\x02"
    data[at + 24 : at + 28] = (2**31).to_bytes(4, "little")
    path = tmp_path / "lying.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(EnvsnapError):
        inspect_checkpoint(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_in_a_checkpoint_directory_is_skipped(tmp_path: Path) -> None:
    directory = tmp_path / "hf"
    directory.mkdir()
    torch.save({"w": torch.zeros(2)}, directory / "model.pt")
    os.mkfifo(directory / "optimizer.pt")
    (directory / "outside.pt").symlink_to(tmp_path / "elsewhere.pt")
    torch.save({"w": torch.ones(2)}, tmp_path / "elsewhere.pt")
    started = time.monotonic()
    report = inspect_checkpoint(directory)
    assert time.monotonic() - started < 30
    found = {i.item: i for i in report.items}
    assert not found["optimizer"].present  # the pipe named optimizer.pt was not read
    assert "outside" not in report.model_dump_json()  # nor the link leading out
