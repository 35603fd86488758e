"""`envsnap fleet DIR` finds manifests in subdirectories, within bounds."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff.fleet import manifest_paths
from envsnap.errors import ManifestError
from tests.helpers import CliResult
from tests.unit.diff.test_fleet import base_document, member

__all__ = ["base_document"]  # the fixture, shared with test_fleet


def _write(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_manifests_in_subdirectories_are_compared(
    tmp_path: Path, base_document: dict[str, Any], run_cli: Callable[..., CliResult]
) -> None:
    root = tmp_path / "runs"
    _write(root / "top.json", member(base_document, 0))
    _write(root / "node-a" / "rank0.json", member(base_document, 1))
    _write(root / "node-b" / "epoch1" / "rank0.json", member(base_document, 17))  # odd one
    result = run_cli("fleet", str(root), "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["total"] == 3
    assert report["odd_ones_out"] == [str(root / "node-b" / "epoch1" / "rank0.json")]


def test_symlinked_directories_are_not_followed(
    tmp_path: Path, base_document: dict[str, Any]
) -> None:
    root = tmp_path / "runs"
    _write(root / "a" / "m.json", member(base_document, 0))
    outside = tmp_path / "elsewhere"
    _write(outside / "other.json", member(base_document, 1))
    os.symlink(outside, root / "link", target_is_directory=True)
    os.symlink(root, root / "a" / "loop", target_is_directory=True)
    assert manifest_paths([root]) == [root / "a" / "m.json"]


def test_more_files_than_the_cap_is_an_error(tmp_path: Path) -> None:
    for index in range(4):
        (tmp_path / "d" / str(index)).mkdir(parents=True)
        (tmp_path / "d" / str(index) / "m.json").write_text("{}")
    with pytest.raises(ManifestError, match="more than 3 manifests"):
        manifest_paths([tmp_path / "d"], limit=3)
    assert len(manifest_paths([tmp_path / "d"], limit=4)) == 4
