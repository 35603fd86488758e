"""Lightning and Hugging Face Trainer callbacks: a real fit of a tiny model on CPU."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from envsnap.manifest.model import Manifest, load

torch = pytest.importorskip("torch")


def test_lightning_callback_captures_at_fit_start_and_on_resume(tmp_path: Path) -> None:
    L = pytest.importorskip("lightning")
    from envsnap.interop.integrations.lightning import EnvsnapCallback

    class Tiny(L.LightningModule):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch: Any, _index: int) -> Any:
            x, y = batch
            return torch.nn.functional.mse_loss(self.layer(x), y)

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)

    data = torch.utils.data.TensorDataset(torch.randn(32, 4), torch.randn(32, 1))

    def trainer(steps: int, callback: EnvsnapCallback) -> Any:
        return L.Trainer(
            max_steps=steps,
            accelerator="cpu",
            devices=1,
            logger=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            default_root_dir=str(tmp_path),
            accumulate_grad_batches=2,
            callbacks=[callback],
        )

    first = EnvsnapCallback(tmp_path / "envsnap")
    fit = trainer(2, first)
    fit.fit(Tiny(), torch.utils.data.DataLoader(data, batch_size=8))
    manifest = load(tmp_path / "envsnap" / "fit-start-rank0.json")
    assert manifest.run.label == "fit-start"
    assert manifest.precision is not None and manifest.precision.optimizer is not None
    assert manifest.precision.optimizer.class_name.endswith("SGD")
    assert manifest.parallel is not None
    assert manifest.parallel.grad_accum_steps == 2
    assert manifest.parallel.dataloader is not None and manifest.parallel.dataloader.batch_size == 8
    # Automatic optimisation divides each step's loss by accumulate_grad_batches.
    assert manifest.parallel.loss_normalization == "per_microbatch_mean"
    assert manifest.parallel.global_batch == 16

    checkpoint = next((tmp_path / "checkpoints").glob("*.ckpt"), None) or next(
        tmp_path.rglob("*.ckpt")
    )
    second = EnvsnapCallback(tmp_path / "envsnap")
    trainer(4, second).fit(
        Tiny(), torch.utils.data.DataLoader(data, batch_size=8), ckpt_path=str(checkpoint)
    )
    assert load(tmp_path / "envsnap" / "resume-rank0.json").run.label == "resume"


def _hf_train(tmp_path: Path, model: Any, rows: list[dict[str, Any]], **changes: Any) -> Manifest:
    """Train with the envsnap callback on CPU and load the manifest it wrote."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    from envsnap.interop.integrations.hf import EnvsnapTrainerCallback

    settings: dict[str, Any] = {
        "output_dir": str(tmp_path / "out"),
        "per_device_train_batch_size": 2,
        "gradient_accumulation_steps": 2,
        "max_steps": 1,
        "report_to": [],
        "use_cpu": True,
        "save_strategy": "no",
        "logging_strategy": "no",
        **changes,
    }
    args = transformers.TrainingArguments(**settings)
    callback = EnvsnapTrainerCallback(tmp_path / "envsnap")
    transformers.Trainer(model=model, args=args, train_dataset=rows, callbacks=[callback]).train()
    return load(tmp_path / "envsnap" / "fit-start-rank0.json")


class Regressor(torch.nn.Module):  # type: ignore[misc,name-defined]
    """A plain module: its forward takes no loss kwargs."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def forward(self, x: Any, labels: Any) -> dict[str, Any]:
        return {"loss": torch.nn.functional.mse_loss(self.layer(x), labels)}


def test_hf_trainer_callback_records_batch_semantics_and_precision(tmp_path: Path) -> None:
    rows = [{"x": torch.randn(4), "labels": torch.randn(1)} for _ in range(16)]
    manifest = _hf_train(
        tmp_path,
        Regressor(),
        rows,
        per_device_train_batch_size=4,
        max_steps=2,
        dataloader_drop_last=True,
        seed=7,
    )
    assert manifest.parallel is not None
    assert manifest.parallel.micro_batch_size == 4
    assert manifest.parallel.grad_accum_steps == 2
    assert manifest.parallel.drop_last is True
    recorded = manifest.extra["hf_training_args"]
    assert isinstance(recorded, dict)
    assert recorded["gradient_accumulation_steps"] == 2
    assert recorded["bf16"] is False and recorded["seed"] == 7
    assert manifest.precision is not None and manifest.precision.optimizer is not None
    # The module returns a per-micro-batch mean, which the Trainer divides by the steps.
    assert manifest.parallel.loss_normalization == "per_microbatch_mean"
    assert recorded["model_accepts_loss_kwargs"] is False


def test_hf_trainer_loader_sampler_batch_and_token_mean_loss(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=32, n_positions=16, n_embd=8, n_layer=1, n_head=2)
    tokens = torch.tensor([1, 2, 3, 4])
    rows = [{"input_ids": tokens, "labels": tokens} for _ in range(8)]
    manifest = _hf_train(tmp_path, transformers.GPT2LMHeadModel(config), rows, seed=3)
    parallel = manifest.parallel
    assert parallel is not None and parallel.dataloader is not None
    # The Trainer's loader is built by accelerate: sampler and batch size sit in batch_sampler.
    sampler = parallel.dataloader.sampler
    assert sampler is not None and sampler.shuffle is True
    assert sampler.class_name.endswith("SeedableRandomSampler")
    assert parallel.dataloader.batch_size == 2
    assert parallel.global_batch == 4
    # A transformers model that takes loss kwargs (num_items_in_batch) gives a mean over the
    # label tokens of the whole accumulated batch; an older one (GPT-2's forward in 4.40 takes
    # none) a mean over micro-batches.
    takes_kwargs = any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        for p in inspect.signature(transformers.GPT2LMHeadModel.forward).parameters.values()
    )
    expected = "per_token_mean" if takes_kwargs else "per_microbatch_mean"
    assert parallel.loss_normalization == expected
    assert parallel.sources["loss_normalization"] == "api"
    assert manifest.precision is not None
    assert manifest.precision.model_class.endswith("GPT2LMHeadModel")
