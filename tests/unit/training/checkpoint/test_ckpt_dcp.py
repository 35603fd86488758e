"""torch.distributed.checkpoint directories: complete, missing shard, shard from another step."""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
dcp = pytest.importorskip("torch.distributed.checkpoint")

from envsnap.training.checkpoint import inspect_checkpoint  # noqa: E402
from tests.helpers import CliResult  # noqa: E402

Run = Callable[..., CliResult]


def _save(directory: Path, steps: int) -> Path:
    """A real DCP save (single process, two shard files) of a model and Adam after `steps`."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    opt = torch.optim.Adam(model.parameters())
    for _ in range(steps):
        opt.zero_grad()
        model(torch.randn(5, 8)).sum().backward()
        opt.step()
    state = {"model": model.state_dict(), "optim": opt.state_dict(), "step": steps}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no process group": expected for a one-process save
        dcp.save(state, storage_writer=dcp.FileSystemWriter(str(directory), thread_count=2))
    return directory


@pytest.fixture(scope="module")
def saves(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("dcp")
    return _save(root / "step-3", 3), _save(root / "step-5", 5)


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def test_complete_dcp_directory(saves: tuple[Path, Path], run_cli: Run) -> None:
    step3, _ = saves
    assert sorted(p.name for p in step3.iterdir() if p.suffix == ".distcp") == [
        "__0_0.distcp",
        "__0_1.distcp",
    ]
    report = inspect_checkpoint(step3)
    assert report.kind == "dcp"
    assert not [f for f in report.findings if f.rule.startswith("dcp.")]
    present = {i.item for i in report.items if i.present}
    assert {"model", "optimizer", "update"} <= present
    assert run_cli("ckpt", "inspect", str(step3), "--fail-on", "critical").code == 0


def test_missing_shard_is_never_accepted(
    saves: tuple[Path, Path], tmp_path: Path, run_cli: Run
) -> None:
    broken = _copy(saves[0], tmp_path)
    os.remove(broken / "__0_1.distcp")
    report = inspect_checkpoint(broken)
    assert report.findings[0].rule == "dcp.shard.missing"
    assert report.findings[0].severity == "critical"
    result = run_cli("ckpt", "inspect", str(broken), "--fail-on", "critical")
    assert result.code == 1 and "__0_1.distcp is missing" in result.out


def test_shard_from_another_step_is_detected(saves: tuple[Path, Path], tmp_path: Path) -> None:
    step3, step5 = saves
    mixed = _copy(step3, tmp_path)
    shutil.copyfile(step5 / "__0_1.distcp", mixed / "__0_1.distcp")
    rules = {f.rule: f for f in inspect_checkpoint(mixed).findings}
    assert "dcp.step.mixed" in rules
    assert "__0_0.distcp: [3]" in rules["dcp.step.mixed"].title
    assert "__0_1.distcp: [5]" in rules["dcp.step.mixed"].title


def test_truncated_shard_and_missing_metadata(saves: tuple[Path, Path], tmp_path: Path) -> None:
    partial = _copy(saves[0], tmp_path)
    shard = partial / "__0_0.distcp"
    shard.write_bytes(shard.read_bytes()[:100])
    assert "dcp.shard.partial" in {f.rule for f in inspect_checkpoint(partial).findings}
    os.remove(partial / ".metadata")
    assert inspect_checkpoint(partial).findings[0].rule == "dcp.metadata.missing"


def test_stray_shard_from_another_save(saves: tuple[Path, Path], tmp_path: Path) -> None:
    stray = _copy(saves[0], tmp_path)
    shutil.copyfile(saves[1] / "__0_1.distcp", stray / "__1_0.distcp")
    assert "dcp.shard.stray" in {f.rule for f in inspect_checkpoint(stray).findings}


def test_metadata_that_needs_arbitrary_unpickling_is_refused(tmp_path: Path, run_cli: Run) -> None:
    import pickle

    marker = tmp_path / "executed.marker"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str, str]]:
            return (open, (str(marker), "w"))

    folder = tmp_path / "evil"
    folder.mkdir()
    (folder / ".metadata").write_bytes(pickle.dumps(Payload()))
    (folder / "__0_0.distcp").write_bytes(b"")
    result = run_cli("ckpt", "inspect", str(folder))
    assert result.code == 2 and "refused" in result.err
    assert not marker.exists()
