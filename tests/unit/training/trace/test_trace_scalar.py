"""Seed document 001's scalar example, exactly, recorded with the real recorder and diagnosed.

loss (w-1)^2/2, v <- 0.9 v + g, w <- w - 0.1 v, from w=0, v=0 (torch SGD with momentum 0.9 and
dampening 0 is exactly this update). After two steps w=0.28, v=-1.8; a third step resumed with v
gives w=0.514, with v reset 0.352, and with target 2 instead of 1 gives 0.614.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from envsnap.training.trace import TraceRecorder, compare_traces, read_trace  # noqa: E402


class Scalar(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))


def _step(
    model: Scalar, opt: torch.optim.Optimizer, target: float, rec: TraceRecorder, update: int
) -> None:
    y = torch.tensor(target, dtype=torch.float64)
    opt.zero_grad()
    loss = (model.w - y) ** 2 / 2
    loss.backward()
    opt.step()
    rec.record(update=update, loss=loss, model=model, optimizer=opt, batch=y)


def _new() -> tuple[Scalar, torch.optim.Optimizer]:
    model = Scalar()
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def _momentum(opt: torch.optim.Optimizer) -> float:
    return float(next(iter(opt.state.values()))["momentum_buffer"])


@pytest.fixture
def reference(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """Three continuous steps, and the state saved after two."""
    model, opt = _new()
    with TraceRecorder(tmp_path / "a.jsonl") as rec:
        for update in (1, 2):
            _step(model, opt, 1.0, rec, update)
        assert float(model.w.detach()) == pytest.approx(0.28, abs=1e-15)
        assert _momentum(opt) == pytest.approx(-1.8, abs=1e-15)
        saved = copy.deepcopy({"model": model.state_dict(), "optim": opt.state_dict()})
        _step(model, opt, 1.0, rec, 3)
    assert float(model.w.detach()) == pytest.approx(0.514, abs=1e-15)
    return tmp_path / "a.jsonl", saved


def _resumed(
    tmp_path: Path, saved: dict[str, object], *, restore_v: bool, target: float
) -> tuple[Path, float]:
    """B: the first two steps, then a new session that restores and takes step 3."""
    path = tmp_path / f"b-{restore_v}-{target}.jsonl"
    model, opt = _new()
    with TraceRecorder(path) as rec:
        for update in (1, 2):
            _step(model, opt, 1.0, rec, update)
    model, opt = _new()
    model.load_state_dict(saved["model"])  # type: ignore[arg-type]
    if restore_v:
        opt.load_state_dict(saved["optim"])  # type: ignore[arg-type]
    with TraceRecorder(path) as rec:
        _step(model, opt, target, rec, 3)
    return path, float(model.w.detach())


def test_resume_with_momentum_is_the_same_trajectory(
    tmp_path: Path, reference: tuple[Path, dict[str, object]]
) -> None:
    a, saved = reference
    b, w = _resumed(tmp_path, saved, restore_v=True, target=1.0)
    assert w == pytest.approx(0.514, abs=1e-15)
    result = compare_traces(read_trace(a), read_trace(b))
    assert result.agree
    assert result.first_difference is None
    assert result.resumes_b == [3]


def test_reset_momentum_is_diagnosed_as_optimizer_state(
    tmp_path: Path, reference: tuple[Path, dict[str, object]]
) -> None:
    a, saved = reference
    b, w = _resumed(tmp_path, saved, restore_v=False, target=1.0)
    assert w == pytest.approx(0.352, abs=1e-15)
    result = compare_traces(read_trace(a), read_trace(b))
    assert not result.agree
    first = result.first_difference
    assert first is not None and first.update == 3 and first.after_resume
    assert [d.field for d in first.fields] == ["optim", "params"]
    assert result.diagnosis is not None and result.diagnosis.code == "optimizer-state"
    assert "optimizer state was not restored" in result.diagnosis.cause


def test_wrong_target_is_diagnosed_as_inputs(
    tmp_path: Path, reference: tuple[Path, dict[str, object]]
) -> None:
    a, saved = reference
    b, w = _resumed(tmp_path, saved, restore_v=True, target=2.0)
    assert w == pytest.approx(0.614, abs=1e-15)
    result = compare_traces(read_trace(a), read_trace(b))
    first = result.first_difference
    assert first is not None and first.update == 3
    assert first.fields[0].field == "samples"
    assert result.diagnosis is not None and result.diagnosis.code == "data-cursor"
    # The loss itself differs too, (0.28-2)^2/2 vs (0.28-1)^2/2, but inputs come first causally.
    loss = {d.field: d for d in first.fields}["loss"]
    assert float(loss.a) == pytest.approx(0.2592, abs=1e-15)
    assert float(loss.b) == pytest.approx(1.4792, abs=1e-15)
