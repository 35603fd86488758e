"""`envsnap show` on a manifest captured where torch is not installed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from envsnap.capturing.collectors.cuda_stack import read_stack
from envsnap.manifest.model import Manifest, write_manifest
from envsnap.manifest.record_base import plain
from tests.helpers import FIXTURES, CliResult


def test_show_says_torch_is_not_installed(
    tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    # The real collector, pointed at a site directory with no torch in it.
    site = tmp_path / "site-packages"
    site.mkdir()
    section = read_stack([site], env={}, conda_prefix=None, etc=tmp_path / "etc")
    assert section.torch_version is None
    document = json.loads((FIXTURES / "manifests" / "full.json").read_text())
    document["cuda_stack"] = plain(section)
    path = tmp_path / "no-torch.json"
    write_manifest(Manifest.model_validate(document).sealed(), path)

    result = run_cli("show", str(path), "--section", "cuda_stack")

    assert result.code == 0, result.err
    assert "torch is not installed" in result.out
    assert "torch ?" not in result.out
