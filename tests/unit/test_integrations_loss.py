"""The Trainer callback with real tiny models on CPU: the loader the Trainer builds, and how the
loss is normalised under gradient accumulation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envsnap.manifest.model import Manifest, load

torch = pytest.importorskip("torch")


def _train(tmp_path: Path, model: Any, rows: list[dict[str, Any]]) -> Manifest:
    transformers = pytest.importorskip("transformers")
    from envsnap.interop.integrations.hf import EnvsnapTrainerCallback

    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=2,
        gradient_accumulation_steps=2,
        max_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        logging_strategy="no",
        seed=3,
    )
    callback = EnvsnapTrainerCallback(tmp_path / "envsnap")
    transformers.Trainer(model=model, args=args, train_dataset=rows, callbacks=[callback]).train()
    return load(tmp_path / "envsnap" / "fit-start-rank0.json")


def test_trainer_loader_sampler_batch_and_token_mean_loss(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=32, n_positions=16, n_embd=8, n_layer=1, n_head=2)
    model = transformers.GPT2LMHeadModel(config)
    rows = [
        {"input_ids": torch.tensor([1, 2, 3, 4]), "labels": torch.tensor([1, 2, 3, 4])}
        for _ in range(8)
    ]
    manifest = _train(tmp_path, model, rows)
    parallel = manifest.parallel
    assert parallel is not None and parallel.dataloader is not None
    sampler = parallel.dataloader.sampler
    assert sampler is not None and sampler.shuffle is True
    assert sampler.class_name.endswith("SeedableRandomSampler")
    assert parallel.dataloader.batch_size == 2
    assert parallel.global_batch == 4
    # A transformers model takes num_items_in_batch: the loss is a mean over the label tokens
    # of the whole accumulated batch.
    assert parallel.loss_normalization == "per_token_mean"
    assert parallel.sources["loss_normalization"] == "api"
    assert manifest.precision is not None
    assert manifest.precision.model_class.endswith("GPT2LMHeadModel")


def test_trainer_with_a_plain_module_declares_micro_batch_mean(tmp_path: Path) -> None:
    class Regressor(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def forward(self, x: Any, labels: Any) -> dict[str, Any]:
            return {"loss": torch.nn.functional.mse_loss(self.layer(x), labels)}

    rows = [{"x": torch.randn(4), "labels": torch.randn(1)} for _ in range(8)]
    manifest = _train(tmp_path, Regressor(), rows)
    assert manifest.parallel is not None
    assert manifest.parallel.loss_normalization == "per_microbatch_mean"
    recorded = manifest.extra["hf_training_args"]
    assert isinstance(recorded, dict) and recorded["model_accepts_loss_kwargs"] is False
