"""Lightning: a callback that captures every rank when training starts, and again on resume.

    from envsnap.interop.integrations.lightning import EnvsnapCallback
    trainer = L.Trainer(callbacks=[EnvsnapCallback("runs/envsnap")])

It captures in `on_train_start` rather than `on_fit_start` because Lightning attaches the
training data loader between the two, and the loader's batch semantics belong in the manifest.
It declares how the loss is normalised under gradient accumulation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lightning.pytorch.callbacks import Callback

from envsnap.interop.integrations._common import capture_for_rank

# Lightning precision plugin names -> autocast dtype.
_AMP_DTYPE = {
    "bf16-mixed": "bfloat16",
    "16-mixed": "float16",
    "bf16-true": "bfloat16",
    "16-true": "float16",
    "transformer-engine": "fp8",
}


def _loss_normalization(pl_module: Any) -> dict[str, str]:
    """Under automatic optimisation Lightning divides each training_step loss by
    accumulate_grad_batches before backward (ClosureResult.from_training_step_output): the
    update follows the mean over micro-batches. Manual optimisation leaves it to the module."""
    if getattr(pl_module, "automatic_optimization", None) is True:
        return {"loss_normalization": "per_microbatch_mean"}
    return {}


class EnvsnapCallback(Callback):
    """Write `fit-start-rank{N}.json` (or `resume-...` when resuming) under `dirpath`."""

    def __init__(self, dirpath: str | Path = "envsnap", **capture_kwargs: Any) -> None:
        self.dirpath = Path(dirpath)
        self.capture_kwargs = capture_kwargs
        self.written: list[Path] = []

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        moment = "resume" if trainer.ckpt_path else "fit-start"
        declared_parallel = {
            "strategy": type(trainer.strategy).__name__,
            "grad_accum_steps": trainer.accumulate_grad_batches,
            "dp_size": trainer.world_size,
            "node_count": trainer.num_nodes,
            **_loss_normalization(pl_module),
            **self.capture_kwargs.get("parallel", {}),
        }
        declared_precision = dict(self.capture_kwargs.get("precision", {}))
        amp = _AMP_DTYPE.get(str(trainer.precision))
        if amp and "amp_dtype" not in declared_precision:
            declared_precision["amp_dtype"] = amp
        schedulers = [config.scheduler for config in trainer.lr_scheduler_configs]
        path = capture_for_rank(
            self.dirpath,
            moment,
            trainer.global_rank,
            trainer.world_size,
            model=pl_module,
            optimizer=trainer.optimizers[0] if trainer.optimizers else None,
            scheduler=schedulers[0] if schedulers else None,
            dataloader=trainer.train_dataloader,
            parallel=declared_parallel,
            precision=declared_precision,
            extra={"lightning_precision": str(trainer.precision), "ckpt_path": trainer.ckpt_path},
            **{k: v for k, v in self.capture_kwargs.items() if k not in ("parallel", "precision")},
        )
        if path is not None:
            self.written.append(path)
