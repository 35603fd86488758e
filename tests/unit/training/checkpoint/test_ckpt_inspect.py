"""`envsnap ckpt inspect` on real checkpoints: complete, each incomplete variant, and unsafe."""

from __future__ import annotations

import builtins
import copy
import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from envsnap.training.checkpoint import UnsafeCheckpointError, inspect_checkpoint  # noqa: E402
from envsnap.training.resume import save_training_state  # noqa: E402
from envsnap.training.seeding import SeedManager  # noqa: E402
from tests.helpers import CliResult  # noqa: E402

Run = Callable[..., CliResult]


def _trained() -> dict[str, Any]:
    """A small model after three real updates, with every piece of resumption state."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(5, 4)).pow(2).mean().backward()
        opt.step()
        sched.step()
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "scaler": scaler.state_dict(),
        "rng": SeedManager(7).state(),
        "update": 3,
        "epoch": 0,
        "data_cursor": {"position": 15, "shuffle_seed": 3},
        "at_boundary": True,
    }


@pytest.fixture(scope="module")
def complete() -> dict[str, Any]:
    return _trained()


def _save(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    torch.save(document, path)
    return path


def _rules(path: Path, target: str = "bitwise") -> set[str]:
    return {f.rule for f in inspect_checkpoint(path, target=target).findings}  # type: ignore[arg-type]


def test_complete_checkpoint_passes(tmp_path: Path, complete: dict[str, Any], run_cli: Run) -> None:
    path = _save(tmp_path, "full.pt", complete)
    report = inspect_checkpoint(path)
    assert report.complete and report.findings == []
    assert {item.item for item in report.items if item.present} == {
        "model",
        "optimizer",
        "scheduler",
        "scaler",
        "rng",
        "update",
        "epoch",
        "data_cursor",
        "boundary",
    }
    result = run_cli("ckpt", "inspect", str(path))
    assert result.code == 0, result.err
    assert "complete" in result.out


@pytest.mark.parametrize(
    ("item", "rule", "severity"),
    [
        ("model", "ckpt.model.missing", "critical"),
        ("optimizer", "ckpt.optimizer.missing", "high"),
        ("scheduler", "ckpt.scheduler.missing", "high"),
        ("scaler", "ckpt.scaler.missing", "high"),
        ("rng", "ckpt.rng.missing", "high"),
        ("update", "ckpt.update.missing", "high"),
        ("epoch", "ckpt.epoch.missing", "medium"),
        ("data_cursor", "ckpt.data_cursor.missing", "high"),
        ("at_boundary", "ckpt.boundary.missing", "medium"),
    ],
)
def test_each_missing_item_is_reported_with_severity_and_consequence(
    tmp_path: Path, complete: dict[str, Any], run_cli: Run, item: str, rule: str, severity: str
) -> None:
    document = {k: v for k, v in complete.items() if k != item}
    path = _save(tmp_path, f"no-{item}.pt", document)
    report = inspect_checkpoint(path)
    assert not report.complete
    [finding] = report.findings
    assert (finding.rule, finding.severity) == (rule, severity)
    assert finding.why and finding.fix
    result = run_cli("ckpt", "inspect", str(path), "--format", "json")
    assert result.code == (1 if severity in ("critical", "high") else 0)
    assert json.loads(result.out)["findings"][0]["rule"] == rule


def test_optimizer_consequence_uses_the_seed_documents_terms(
    tmp_path: Path, complete: dict[str, Any]
) -> None:
    document = {k: v for k, v in complete.items() if k != "optimizer"}
    [finding] = inspect_checkpoint(_save(tmp_path, "x.pt", document)).findings
    assert "0.352 instead of 0.514" in finding.why


def test_severity_depends_on_the_target(tmp_path: Path, complete: dict[str, Any]) -> None:
    path = _save(tmp_path, "no-rng.pt", {k: v for k, v in complete.items() if k != "rng"})
    severities = {
        target: inspect_checkpoint(path, target=target).findings[0].severity  # type: ignore[arg-type]
        for target in ("bitwise", "close", "conclusion")
    }
    assert severities == {"bitwise": "high", "close": "high", "conclusion": "low"}


def test_optimizer_buffers_missing_for_some_parameters(
    tmp_path: Path, complete: dict[str, Any]
) -> None:
    document = copy.deepcopy(complete)
    del document["optimizer"]["state"][2]
    report = inspect_checkpoint(_save(tmp_path, "partial.pt", document))
    [finding] = report.findings
    assert finding.rule == "ckpt.optimizer.incomplete"
    assert "missing for 1 of 4 parameters (2)" in finding.title


def test_optimizer_saved_before_any_update_has_no_buffers(
    tmp_path: Path, complete: dict[str, Any]
) -> None:
    model = torch.nn.Linear(2, 2)
    fresh = torch.optim.Adam(model.parameters()).state_dict()
    document = {**complete, "optimizer": fresh}
    [finding] = inspect_checkpoint(_save(tmp_path, "fresh.pt", document)).findings
    assert finding.rule == "ckpt.optimizer.incomplete"
    assert "no per-parameter buffers" in finding.title


def test_plain_sgd_without_momentum_needs_no_buffers(
    tmp_path: Path, complete: dict[str, Any]
) -> None:
    model = torch.nn.Linear(2, 2)
    stateless = torch.optim.SGD(model.parameters(), lr=0.1).state_dict()
    document = {**complete, "optimizer": stateless}
    assert inspect_checkpoint(_save(tmp_path, "sgd.pt", document)).complete


def test_mid_accumulation_save_is_flagged(tmp_path: Path, complete: dict[str, Any]) -> None:
    document = {**complete, "at_boundary": False}
    [finding] = inspect_checkpoint(_save(tmp_path, "mid.pt", document)).findings
    assert finding.rule == "ckpt.boundary.mid-accumulation"
    assert finding.severity == "high"


def test_weights_only_file_lacks_everything_else(tmp_path: Path, complete: dict[str, Any]) -> None:
    path = _save(tmp_path, "weights.pt", complete["model"])
    report = inspect_checkpoint(path)
    present = {item.item for item in report.items if item.present}
    assert present == {"model"}
    assert "ckpt.optimizer.missing" in {f.rule for f in report.findings}


class _Payload:
    """Unpickling this opens (creates) a marker file: proof that code would run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (builtins.open, (str(self.marker), "w"))


# The control load at the end runs the payload, which opens the marker file and drops it.
@pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)
def test_checkpoint_that_would_execute_code_is_refused(
    tmp_path: Path, complete: dict[str, Any], run_cli: Run
) -> None:
    marker = tmp_path / "executed.marker"
    path = _save(tmp_path, "evil.pt", {"model": complete["model"], "hook": _Payload(marker)})
    with pytest.raises(UnsafeCheckpointError):
        inspect_checkpoint(path)
    result = run_cli("ckpt", "inspect", str(path))
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert (
        "refused" in result.err and "arbitrary unpickling" in result.err and "io.open" in result.err
    )
    assert "Traceback" not in result.err
    assert not marker.exists()
    # Control: an unrestricted load really would have run the payload.
    torch.load(path, weights_only=False)
    assert marker.exists()


def _write_safetensors(
    path: Path, tensors: dict[str, tuple[str, list[int], bytes]], cut: int = 0
) -> None:
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset, blobs = 0, []
    for name, (dtype, shape, blob) in tensors.items():
        header[name] = {
            "dtype": dtype,
            "shape": shape,
            "data_offsets": [offset, offset + len(blob)],
        }
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    data = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    path.write_bytes(data[: len(data) - cut])


def test_safetensors_weights_are_read_from_the_header(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "model.safetensors"
    _write_safetensors(path, {"w": ("F32", [2, 2], bytes(16)), "b": ("F32", [2], bytes(8))})
    report = inspect_checkpoint(path)
    assert report.kind == "safetensors"
    assert [i.detail for i in report.items if i.item == "model"] == ["2 tensors"]
    _write_safetensors(path, {"w": ("F32", [2, 2], bytes(16))}, cut=4)
    result = run_cli("ckpt", "inspect", str(path))
    assert result.code == 2 and "truncated" in result.err


def test_training_state_directory_complete_and_incomplete(tmp_path: Path, run_cli: Run) -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0)
    target = save_training_state(
        tmp_path / "save",
        model=model,
        optimizer=opt,
        scheduler=sched,
        scaler=torch.amp.GradScaler("cpu"),
        data_cursor={"position": 2},
        seeds=SeedManager(1),
        update=1,
        epoch=0,
    )
    report = inspect_checkpoint(target)
    assert report.kind == "training-state" and report.complete, report.findings
    (target / "COMPLETE.json").unlink()
    report = inspect_checkpoint(target)
    assert report.findings[0].rule == "ckpt.save.incomplete"
    assert report.findings[0].severity == "critical"
    assert run_cli("ckpt", "inspect", str(target)).code == 1


def test_trainer_style_directory_merges_its_files(tmp_path: Path, complete: dict[str, Any]) -> None:
    folder = tmp_path / "checkpoint-3"
    folder.mkdir()
    _write_safetensors(folder / "model.safetensors", {"w": ("F32", [1], bytes(4))})
    torch.save(complete["optimizer"], folder / "optimizer.pt")
    torch.save(complete["scheduler"], folder / "scheduler.pt")
    torch.save(complete["rng"], folder / "rng_state.pth")
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": 3, "epoch": 1.0}))
    report = inspect_checkpoint(folder)
    missing = {i.item for i in report.items if not i.present}
    assert missing == {"scaler", "data_cursor", "boundary"}


def test_not_a_checkpoint_is_a_clear_error(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "notes.pt"
    path.write_text("hello")
    result = run_cli("ckpt", "inspect", str(path))
    assert result.code == 2 and "not a readable PyTorch checkpoint" in result.err
    assert run_cli("ckpt", "inspect", str(tmp_path / "absent.pt")).code == 2
