"""The parallel section: layout, derived global batch, loss normalisation, data loader."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.capturing.collectors.parallel import collect
from envsnap.capturing.config import CaptureConfig
from envsnap.training.lossnorm import combine

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402


def _context(
    tmp_path: Path,
    env: dict[str, str] | None = None,
    declared: dict[str, Any] | None = None,
    **inputs: Any,
) -> CaptureContext:
    return CaptureContext(
        env=env or {},
        cwd=tmp_path,
        config=CaptureConfig(declared={"parallel": declared or {}}),
        inputs=inputs,
        deadline=time.monotonic() + 30,
    )


def _seed_worker(worker_id: int) -> None:
    torch.manual_seed(torch.initial_seed() % 2**32 + worker_id)


def _loader() -> DataLoader[Any]:
    dataset = TensorDataset(torch.arange(103).float())
    sampler = DistributedSampler(dataset, num_replicas=4, rank=1, shuffle=True, seed=7)
    sampler.set_epoch(3)
    return DataLoader(
        dataset,
        batch_size=8,
        sampler=sampler,
        num_workers=2,
        drop_last=True,
        persistent_workers=True,
        pin_memory=False,
        prefetch_factor=3,
        worker_init_fn=_seed_worker,
        generator=torch.Generator().manual_seed(1234),
    )


def test_the_seed_documents_normalisation_example() -> None:
    means, tokens = [0.2, 1.0], [10, 30]
    assert combine(means, tokens, "per_microbatch_mean") == pytest.approx(0.6)
    assert combine(means, tokens, "per_token_mean") == pytest.approx(0.8)
    assert combine(means, tokens, "sum") == pytest.approx(32.0)
    with pytest.raises(ValueError, match="unknown mode"):
        combine(means, tokens, "median")


def test_normalisation_mode_is_recorded_so_the_two_runs_differ(tmp_path: Path) -> None:
    a = collect(_context(tmp_path, declared={"loss_normalization": "per_microbatch_mean"}))
    b = collect(_context(tmp_path, parallel={"loss_normalization": "per_token_mean"}))
    assert (a.loss_normalization, b.loss_normalization) == ("per_microbatch_mean", "per_token_mean")
    assert (a.sources["loss_normalization"], b.sources["loss_normalization"]) == ("config", "api")
    unset = collect(_context(tmp_path, declared={"grad_accum_steps": 2}))
    assert "loss_normalization" in unset.unknown


def test_dataloader_facts_with_two_workers_and_a_distributed_sampler(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, dataloader=_loader()))
    info = section.dataloader
    assert info is not None
    assert (info.batch_size, info.num_workers, info.drop_last) == (8, 2, True)
    assert (info.persistent_workers, info.pin_memory, info.prefetch_factor) == (True, False, 3)
    assert info.generator_seed == 1234
    assert info.worker_init_fn is not None and info.worker_init_fn.endswith("_seed_worker")
    assert info.collate_fn == "torch.utils.data._utils.collate.default_collate"
    assert info.dataset_length == 103 and info.batches_per_epoch == 3  # ceil(103/4)=26 -> 3
    sampler = info.sampler
    assert sampler is not None
    assert sampler.class_name == "torch.utils.data.distributed.DistributedSampler"
    assert (sampler.shuffle, sampler.seed, sampler.epoch) == (True, 7, 3)
    assert (sampler.num_replicas, sampler.rank, sampler.drop_last) == (4, 1, False)
    assert section.micro_batch_size == 8 and section.sources["micro_batch_size"] == "dataloader"
    assert section.drop_last is True


def test_global_batch_is_derived_from_env_loader_and_declarations(tmp_path: Path) -> None:
    env = {"WORLD_SIZE": "8", "RANK": "3", "LOCAL_RANK": "3", "LOCAL_WORLD_SIZE": "4"}
    section = collect(
        _context(
            tmp_path,
            env,
            declared={"grad_accum_steps": 4, "tp_size": 2, "global_batch_declared": 128},
            dataloader=_loader(),
        )
    )
    assert (section.world_size, section.rank, section.node_count) == (8, 3, 2)
    assert section.dp_size == 4 and section.sources["dp_size"] == "derived"
    assert section.global_batch == 8 * 4 * 4
    assert section.global_batch_formula == "8 x 4 x 4 = 128"
    assert section.global_batch_consistent is True
    wrong = collect(
        _context(
            tmp_path,
            env,
            declared={"micro_batch_size": 8, "global_batch_declared": 100, "grad_accum_steps": 1},
        )
    )
    assert wrong.global_batch == 64 and wrong.global_batch_consistent is False


def test_declared_values_win_over_observed_ones(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, declared={"micro_batch_size": 2}, dataloader=_loader()))
    assert section.micro_batch_size == 2 and section.sources["micro_batch_size"] == "config"


def test_missing_factor_leaves_global_batch_null_with_a_reason(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, declared={"micro_batch_size": 4}))
    assert section.global_batch is None
    assert section.unknown["global_batch"] == "not derived: grad_accum_steps unknown"


def test_nothing_to_say_is_skipped_and_wrong_loader_recorded(tmp_path: Path) -> None:
    with pytest.raises(CollectorUnavailable):
        collect(_context(tmp_path))
    section = collect(_context(tmp_path, dataloader=[1, 2, 3]))
    assert "expected a torch.utils.data.DataLoader" in section.unknown["dataloader"]


def test_world_size_comes_from_a_distributed_sampler_before_a_default(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from envsnap.capturing.collectors.parallel import collect

    data = torch.utils.data.TensorDataset(torch.arange(16))
    sampler = torch.utils.data.DistributedSampler(data, num_replicas=2, rank=0)
    loader = torch.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
    context = CaptureContext(
        env={}, cwd=tmp_path, inputs={"dataloader": loader, "parallel": {"grad_accum_steps": 2}}
    )
    section = collect(context)
    assert section.world_size == 2
    assert section.global_batch == 16


def test_a_zero_accumulation_declaration_is_not_a_global_batch_of_zero(tmp_path: Path) -> None:
    from envsnap.capturing.collectors.parallel import collect

    context = CaptureContext(
        env={},
        cwd=tmp_path,
        inputs={"parallel": {"micro_batch_size": 8, "dp_size": 2, "grad_accum_steps": 0}},
    )
    section = collect(context)
    assert section.global_batch is None
    assert "grad_accum_steps=0" in section.unknown["global_batch"]


def _eval_loader(drop_last: bool) -> DataLoader[Any]:
    return DataLoader(TensorDataset(torch.arange(50).float()), batch_size=16, drop_last=drop_last)


def test_named_loaders_record_the_training_one_and_the_others_by_name(tmp_path: Path) -> None:
    loaders = {"eval": _eval_loader(True), "train": _loader(), "bad": [1, 2]}
    section = collect(_context(tmp_path, dataloader=loaders))
    assert section.dataloader is not None and section.dataloader.batch_size == 8
    assert section.micro_batch_size == 8 and section.drop_last is True  # from the train loader
    assert set(section.dataloaders) == {"eval"}
    assert (section.dataloaders["eval"].batch_size, section.dataloaders["eval"].drop_last) == (
        16,
        True,
    )
    assert "expected a torch.utils.data.DataLoader" in section.unknown["dataloaders.bad"]
    first = collect(_context(tmp_path, dataloader={"eval": _eval_loader(False)}))
    assert first.dataloader is not None and first.dataloader.batch_size == 16
    assert first.dataloaders == {}


def test_an_eval_loaders_drop_last_is_a_finding_that_names_the_loader(tmp_path: Path) -> None:
    from envsnap import capture
    from envsnap.diff import diff_documents

    sides = [
        capture(
            dataloader={"train": _loader(), "eval": _eval_loader(drop_last)},
            only=["parallel"],
        ).to_document()
        for drop_last in (False, True)
    ]
    findings = [f for f in diff_documents(*sides).findings if f.path.startswith("parallel.")]
    assert [(f.rule, f.path) for f in findings] == [
        ("semantics.eval-loader", "parallel.dataloaders.eval.drop_last")
    ]
    assert findings[0].title == "evaluation data loader changed: eval drop_last false → true"
    assert findings[0].severity == "high"
