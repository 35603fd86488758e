"""save_training_state / load_training_state: complete round trip, and refusals."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from envsnap.errors import EnvsnapError  # noqa: E402
from envsnap.training.resume import load_training_state, save_training_state  # noqa: E402
from envsnap.training.seeding import SeedManager  # noqa: E402


def _job(seed: int = 0) -> dict[str, Any]:
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    scaler = torch.amp.GradScaler("cpu", init_scale=128.0)
    return {"model": model, "optimizer": opt, "scheduler": sched, "scaler": scaler}


def _train(job: dict[str, Any], steps: int) -> None:
    for _ in range(steps):
        job["optimizer"].zero_grad()
        loss = job["model"](torch.randn(3, 4)).pow(2).mean()
        job["scaler"].scale(loss).backward()
        job["scaler"].step(job["optimizer"])
        job["scaler"].update()
        job["scheduler"].step()


def _save(path: Path, job: dict[str, Any], **kwargs: Any) -> Path:
    return save_training_state(
        path, **job, data_cursor={"position": 6}, seeds=SeedManager(3), update=2, epoch=0, **kwargs
    )


def test_round_trip_restores_everything(tmp_path: Path) -> None:
    job = _job()
    _train(job, 2)
    saved = _save(tmp_path / "s", job)
    marker = json.loads((saved / "COMPLETE.json").read_text())
    assert marker["update"] == 2 and marker["at_boundary"] is True
    expected_next, expected_py = torch.rand(3), random.random()
    torch.rand(5)  # move the streams on; restore must bring them back
    random.random()

    fresh = _job(seed=99)
    info = load_training_state(saved, **fresh, seeds=SeedManager(3))
    assert info.update == 2 and info.epoch == 0 and info.data_cursor == {"position": 6}
    assert torch.equal(torch.rand(3), expected_next)  # the RNG streams continue
    assert random.random() == expected_py
    for key in ("model", "optimizer", "scheduler", "scaler"):
        assert str(fresh[key].state_dict()) == str(job[key].state_dict()), key
    assert not [p for p in saved.iterdir() if p.name.endswith(".tmp")]


def test_incomplete_save_is_refused(tmp_path: Path) -> None:
    job = _job()
    _train(job, 1)
    saved = _save(tmp_path / "s", job)
    (saved / "COMPLETE.json").unlink()
    with pytest.raises(EnvsnapError, match="no completion marker"):
        load_training_state(saved, model=_job()["model"])


def test_state_changed_after_the_marker_is_refused(tmp_path: Path) -> None:
    job = _job()
    _train(job, 1)
    saved = _save(tmp_path / "s", job)
    state = saved / "training_state.pt"
    state.write_bytes(state.read_bytes()[:-10])
    with pytest.raises(EnvsnapError, match="does not match its completion marker"):
        load_training_state(saved, model=_job()["model"])


def test_unloadable_state_is_rejected_before_writing(tmp_path: Path) -> None:
    job = _job()
    _train(job, 1)
    saved = _save(tmp_path / "s", job)
    with pytest.raises(EnvsnapError):
        # A value weights_only cannot load: rejected before anything is written...
        save_training_state(saved, model=job["model"], update=3, extra={"bad": object()})
    # ...so the previous complete save is untouched.
    assert load_training_state(saved).update == 2


def test_mid_accumulation_save_is_refused_unless_allowed(tmp_path: Path) -> None:
    job = _job()
    _train(job, 1)
    saved = _save(tmp_path / "s", job, micro_step=1)
    with pytest.raises(EnvsnapError, match="middle of gradient accumulation"):
        load_training_state(saved, model=_job()["model"])
    assert load_training_state(saved, allow_mid_accumulation=True).micro_step == 1


def test_asking_for_state_that_was_not_saved_is_an_error(tmp_path: Path) -> None:
    job = _job()
    saved = save_training_state(tmp_path / "s", model=job["model"], update=0)
    with pytest.raises(EnvsnapError, match="no optimizer state"):
        load_training_state(saved, model=job["model"], optimizer=job["optimizer"])
    with pytest.raises(EnvsnapError, match="no RNG state"):
        load_training_state(saved, seeds=SeedManager(1))


def test_any_object_with_state_and_restore_is_accepted(tmp_path: Path) -> None:
    class Counter:
        def __init__(self) -> None:
            self.value = 5

        def state(self) -> list[int]:
            return [self.value]

        def restore(self, state: list[int]) -> None:
            self.value = state[0]

    job = _job()
    saved = save_training_state(tmp_path / "s", model=job["model"], update=1, seeds=Counter())
    other = Counter()
    other.value = 0
    load_training_state(saved, seeds=other)
    assert other.value == 5
