"""Hugging Face Transformers: a TrainerCallback that captures every rank when training starts.

    from envsnap.interop.integrations.hf import EnvsnapTrainerCallback
    trainer = Trainer(..., callbacks=[EnvsnapTrainerCallback("runs/envsnap")])

Besides the usual sections it records the Trainer arguments that define batch semantics
(per-device batch, accumulation, world size, drop_last) and precision (bf16/fp16/tf32).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from envsnap.interop.integrations._common import capture_for_rank

# TrainingArguments that change what is optimised or how it is computed.
RECORDED_ARGS = (
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "world_size",
    "n_gpu",
    "dataloader_drop_last",
    "bf16",
    "fp16",
    "tf32",
    "seed",
    "data_seed",
    "full_determinism",
    "learning_rate",
    "lr_scheduler_type",
    "warmup_steps",
    "warmup_ratio",
    "weight_decay",
    "max_grad_norm",
    "optim",
    "average_tokens_across_devices",
    "torch_compile",
    "resume_from_checkpoint",
    "max_steps",
    "num_train_epochs",
)


def recorded_args(args: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in RECORDED_ARGS:
        value = getattr(args, name, None)
        out[name] = (
            value if value is None or isinstance(value, (bool, int, float, str)) else str(value)
        )
    return out


class EnvsnapTrainerCallback(TrainerCallback):
    """Write `fit-start-rank{N}.json` (or `resume-...`) under `dirpath` in on_train_begin."""

    def __init__(self, dirpath: str | Path = "envsnap", **capture_kwargs: Any) -> None:
        self.dirpath = Path(dirpath)
        self.capture_kwargs = capture_kwargs
        self.written: list[Path] = []

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        moment = "resume" if state.global_step > 0 or args.resume_from_checkpoint else "fit-start"
        parallel = {
            "micro_batch_size": args.per_device_train_batch_size,
            "grad_accum_steps": args.gradient_accumulation_steps,
            "dp_size": args.world_size,
            "drop_last": args.dataloader_drop_last,
            **self.capture_kwargs.get("parallel", {}),
        }
        precision = dict(self.capture_kwargs.get("precision", {}))
        if "amp_dtype" not in precision:
            precision["amp_dtype"] = "bfloat16" if args.bf16 else "float16" if args.fp16 else None
        path = capture_for_rank(
            self.dirpath,
            moment,
            args.process_index,
            args.world_size,
            model=kwargs.get("model"),
            optimizer=kwargs.get("optimizer"),
            scheduler=kwargs.get("lr_scheduler"),
            dataloader=kwargs.get("train_dataloader"),
            parallel=parallel,
            precision={k: v for k, v in precision.items() if v is not None},
            extra={"hf_training_args": recorded_args(args)},
            **{k: v for k, v in self.capture_kwargs.items() if k not in ("parallel", "precision")},
        )
        if path is not None:
            self.written.append(path)
