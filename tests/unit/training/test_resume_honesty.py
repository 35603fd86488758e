"""`ckpt inspect` and `trace diff` judge a resume by the state the run used, and name every loss.

A real model trains on CPU with envsnap's TraceRecorder, saves with `save_training_state` and is
resumed by fresh objects (re-seeded, as a new job would be), optionally with pieces of state
left unrestored. The checkpoint and the traces are then read by the real CLI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from envsnap.training.resume import load_training_state, save_training_state  # noqa: E402
from envsnap.training.seeding import SeedManager  # noqa: E402
from envsnap.training.trace import TraceRecorder  # noqa: E402
from tests.helpers import CliResult  # noqa: E402

Run = Callable[..., CliResult]
SAMPLES, BATCH, UPDATES, SAVE_AT = 32, 4, 8, 4


def train(
    trace: Path,
    *,
    ckpt: Path,
    resume: bool = False,
    faults: frozenset[str] = frozenset(),
    scaler: object = None,
) -> None:
    """Train to UPDATES; a fresh run saves after SAVE_AT, a resumed one starts from the save."""
    seeds = SeedManager(42)
    seeds.seed_all()
    data = torch.Generator().manual_seed(7)
    inputs = torch.randn(SAMPLES, 4, generator=data)
    targets = inputs.sum(dim=1, keepdim=True)
    order = torch.randperm(SAMPLES, generator=data)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Dropout(0.3), torch.nn.Linear(8, 1)
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    update, position = 0, 0
    if resume:
        info = load_training_state(
            ckpt,
            model=model,
            optimizer=optimizer,
            scheduler=None if "no-scheduler" in faults else scheduler,
            seeds=None if "no-rng" in faults else seeds,
        )
        update = info.update
        position = 0 if "data-reset" in faults else info.data_cursor["position"]
    with TraceRecorder(trace) as recorder:
        while update < UPDATES:
            ids = order[position * BATCH : (position + 1) * BATCH]
            loss = torch.nn.functional.mse_loss(model(inputs[ids]), targets[ids])
            loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            update, position = update + 1, position + 1
            recorder.record(
                update=update,
                loss=loss,
                model=model,
                optimizer=optimizer,
                scheduler=scheduler,
                sample_ids=ids,
            )
            if not resume and update == SAVE_AT:
                save_training_state(
                    ckpt,
                    model=model,
                    optimizer=optimizer,
                    scheduler=scheduler,
                    scaler=scaler,  # type: ignore[arg-type]
                    data_cursor={"position": position},
                    seeds=seeds,
                    update=update,
                    epoch=0,
                )


def resumed(root: Path, continuous: Path, ckpt: Path, faults: frozenset[str]) -> Path:
    """A trace of updates 1-SAVE_AT from the continuous run, then a resume from the save."""
    trace = root / f"resumed-{'-'.join(sorted(faults)) or 'clean'}.jsonl"
    trace.write_text("".join(continuous.read_text().splitlines(keepends=True)[: SAVE_AT + 1]))
    train(trace, ckpt=ckpt, resume=True, faults=faults)
    return trace


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("honest-resume")
    continuous, ckpt = root / "continuous.jsonl", root / "ckpt"
    train(continuous, ckpt=ckpt)
    return root, continuous, ckpt


def test_an_fp32_save_is_complete_and_its_resume_bitwise_identical(
    run: tuple[Path, Path, Path], run_cli: Run
) -> None:
    root, continuous, ckpt = run
    inspected = run_cli("ckpt", "inspect", str(ckpt), "--format", "json")
    assert inspected.code == 0, inspected.out
    report = json.loads(inspected.out)
    assert report["complete"] is True and report["findings"] == []
    scaler = next(item for item in report["items"] if item["item"] == "scaler")
    assert scaler["needed"] is False and "no GradScaler" in scaler["detail"]
    assert "not needed" in run_cli("ckpt", "inspect", str(ckpt)).out

    trace = resumed(root, continuous, ckpt, frozenset())
    diffed = run_cli("trace", "diff", str(continuous), str(trace), "--format", "json")
    assert diffed.code == 0, diffed.out
    result = json.loads(diffed.out)
    # No scaler was used: nothing about it is compared, or reported as recorded on one side.
    assert result["agree"] and result["not_compared"] == [] and result["lost_at_resume"] == []


def test_a_disabled_scaler_is_not_needed_and_an_enabled_one_is_checked(
    tmp_path: Path, run_cli: Run
) -> None:
    disabled = tmp_path / "disabled"
    train(tmp_path / "a.jsonl", ckpt=disabled, scaler=torch.amp.GradScaler("cpu", enabled=False))
    assert run_cli("ckpt", "inspect", str(disabled)).code == 0
    enabled = tmp_path / "enabled"
    train(tmp_path / "b.jsonl", ckpt=enabled, scaler=torch.amp.GradScaler("cpu"))
    report = json.loads(run_cli("ckpt", "inspect", str(enabled), "--format", "json").out)
    scaler = next(item for item in report["items"] if item["item"] == "scaler")
    assert scaler["present"] and scaler["needed"] and report["complete"]


def test_the_manifest_decides_when_the_run_used_a_scaler_the_save_lacks(
    run: tuple[Path, Path, Path], tmp_path: Path, run_cli: Run
) -> None:
    import envsnap

    _, _, ckpt = run
    manifest = tmp_path / "run.json"
    model = torch.nn.Linear(4, 1)
    envsnap.capture(manifest, model=model, scaler=torch.amp.GradScaler("cpu"), only=["precision"])
    result = run_cli("ckpt", "inspect", str(ckpt), "--manifest", str(manifest))
    assert result.code == 1
    assert "no loss-scaler state" in result.out and "enabled GradScaler" in result.out
    rule = run_cli(
        "ckpt",
        "inspect",
        str(ckpt),
        "--manifest",
        str(manifest),
        "--fail-on",
        "ckpt.scaler.missing",
    )
    assert rule.code == 1, rule.err


def test_trace_diff_lists_every_piece_of_state_lost_at_the_resume(
    run: tuple[Path, Path, Path], run_cli: Run
) -> None:
    root, continuous, ckpt = run
    faults = frozenset({"data-reset", "no-rng", "no-scheduler"})
    trace = resumed(root, continuous, ckpt, faults)
    diffed = run_cli("trace", "diff", str(continuous), str(trace), "--format", "json")
    assert diffed.code == 1
    result = json.loads(diffed.out)
    assert result["first_difference"]["update"] == SAVE_AT + 1
    # The optimizer was restored: its different moments follow from the other inputs and
    # draws, so it is not listed as lost.
    assert [d["code"] for d in result["lost_at_resume"]] == [
        "data-cursor",
        "rng",
        "scheduler-state",
    ]
    assert result["diagnosis"]["code"] == "data-cursor"
    table = run_cli("trace", "diff", str(continuous), str(trace)).out
    assert "State lost at the resume (3)" in table
