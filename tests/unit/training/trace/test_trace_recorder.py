"""The recorder's lines: flushed per update, exact values, exact-byte digests, options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from envsnap.training.trace import TraceRecorder, digest_tree, read_trace  # noqa: E402


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_update_is_one_flushed_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    recorder = TraceRecorder(path)
    recorder.record(
        update=1, loss=torch.tensor(0.25), model=model, optimizer=opt, sample_ids=[3, 1]
    )
    # Read while the recorder is still open: the line is already on disk.
    lines = _lines(path)
    recorder.close()
    assert [line["kind"] for line in lines] == ["session", "update"]
    line = lines[1]
    assert line["update"] == 1 and line["micro_steps"] == 1 and line["lr"] == [0.5]
    assert line["params"] == digest_tree(model.state_dict())
    assert line["samples"] == digest_tree([digest_tree([3, 1])])
    assert set(line["rng"]) == {"python", "numpy", "torch", "cuda"}  # type: ignore[arg-type]
    assert line["rng"]["cuda"] is None  # type: ignore[index]


def test_loss_is_written_exactly(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    float32_loss = torch.tensor(0.1, dtype=torch.float32)
    with TraceRecorder(path, digests=()) as recorder:
        recorder.record(update=1, loss=0.1 + 0.2)
        recorder.record(update=2, loss=float32_loss)
        recorder.record(update=3, loss=float("nan"))
    losses = [line.get("loss") for line in _lines(path)[1:]]
    assert losses[0] == 0.30000000000000004
    assert losses[1] == float(float32_loss) and losses[1] != 0.1  # the float32 value, not 0.1
    assert losses[2] == "nan"


def test_digests_see_exact_bytes() -> None:
    assert digest_tree(torch.tensor([0.0])) != digest_tree(torch.tensor([-0.0]))
    assert digest_tree(torch.zeros(2, dtype=torch.float32)) != digest_tree(
        torch.zeros(4, dtype=torch.bfloat16)
    )
    assert digest_tree(torch.zeros(2, 3)) != digest_tree(torch.zeros(3, 2))
    base = torch.arange(6.0)
    assert digest_tree(base[::2]) == digest_tree(torch.tensor([0.0, 2.0, 4.0]))
    nudged = torch.tensor([1.0]) + torch.tensor([torch.finfo(torch.float32).eps])
    assert digest_tree(nudged) != digest_tree(torch.tensor([1.0]))
    assert digest_tree([1, 2]) != digest_tree("12") != digest_tree((1.0, 2.0))
    assert digest_tree({2: "a", 1: "b"}) == digest_tree({1: "b", 2: "a"})


def test_every_and_digest_selection(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    model = torch.nn.Linear(2, 1)
    with TraceRecorder(path, every=3, digests=["params"]) as recorder:
        written = [recorder.record(update=u, loss=1.0, model=model) for u in range(1, 8)]
    assert [w is not None for w in written] == [False, False, True, False, False, True, False]
    lines = _lines(path)[1:]
    assert [line["update"] for line in lines] == [3, 6]
    assert "optim" not in lines[0] and "rng" not in lines[0] and lines[0]["params"]
    with pytest.raises(ValueError, match="unknown digests"):
        TraceRecorder(tmp_path / "x.jsonl", digests=["weights"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="every"):
        TraceRecorder(tmp_path / "x.jsonl", every=0)


def test_micro_steps_and_skipped_updates(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)

    def update(factor: float) -> None:
        opt.zero_grad()
        scaler.scale(model(torch.ones(1, 2)).sum() * factor).backward()
        scaler.step(opt)  # skipped when the gradients hold inf
        scaler.update()

    with TraceRecorder(path) as recorder:
        for ids in ([1, 2], [3, 4], [5, 6]):
            recorder.micro_step(sample_ids=ids)
        update(1.0)
        recorder.record(update=1, loss=1.0, scaler=scaler)
        update(float("inf"))  # overflow: GradScaler skips the step and halves the scale
        recorder.record(update=2, loss=1.0, scaler=scaler)
        with pytest.raises(ValueError, match="not after"):
            recorder.record(update=2, loss=1.0)
    first, second = _lines(path)[1:]
    assert first["micro_steps"] == 3 and first["scale"] == 8.0 and first["skipped"] == 0
    assert second["skipped"] == 1 and second["scale"] == 4.0


def test_appending_sessions_marks_the_resume(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TraceRecorder(path, digests=()) as recorder:
        for update in (1, 2, 3):
            recorder.record(update=update, loss=1.0)
    with TraceRecorder(path, digests=()) as recorder:
        # A restart from the save after update 2 re-records update 3: the later line wins.
        recorder.record(update=3, loss=2.0)
        recorder.record(update=4, loss=2.0)
    trace = read_trace(path)
    assert sorted(trace.updates) == [1, 2, 3, 4]
    assert trace.updates[3].loss == 2.0
    assert trace.resumes == [3]
