"""Hugging Face Transformers: a TrainerCallback that captures every rank when training starts.

    from envsnap.interop.integrations.hf import EnvsnapTrainerCallback
    trainer = Trainer(..., callbacks=[EnvsnapTrainerCallback("runs/envsnap")])

Besides the usual sections it records the Trainer arguments that define batch semantics
(per-device batch, accumulation, world size, drop_last), how the loss is normalised under
gradient accumulation, and precision (bf16/fp16/tf32).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from envsnap.capturing.collectors.wrappers import unwrap
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


def accepts_loss_kwargs(model: Any) -> bool | None:
    """Whether the Trainer passes `num_items_in_batch` to this model, decided as the Trainer
    decides it: the model's `accepts_loss_kwargs`, else a `**kwargs` in its forward."""
    inner = unwrap(model).model
    declared = getattr(inner, "accepts_loss_kwargs", None)
    if isinstance(declared, bool):
        return declared
    try:
        parameters = inspect.signature(inner.forward).parameters.values()
    except (AttributeError, TypeError, ValueError):
        return None
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def loss_normalization(model: Any) -> str | None:
    """How the Trainer combines micro-batch losses under gradient accumulation.

    A model that does not take loss kwargs returns a per-micro-batch mean, which the Trainer
    divides by the accumulation steps: a mean over micro-batches. A transformers model that
    takes them divides its summed loss by `num_items_in_batch`, the label tokens of the whole
    accumulated batch (and of every rank with average_tokens_across_devices), and the Trainer
    does not divide again: a mean over tokens. A custom model that takes **kwargs may ignore
    `num_items_in_batch`; that case is left undeclared.
    """
    accepts = accepts_loss_kwargs(model)
    if accepts is False:
        return "per_microbatch_mean"
    inner = unwrap(model).model
    is_transformers = any(
        cls.__name__ == "PreTrainedModel" and cls.__module__.startswith("transformers.")
        for cls in type(inner).__mro__
    )
    return "per_token_mean" if accepts and is_transformers else None


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
        model = kwargs.get("model")
        normalization = loss_normalization(model) if model is not None else None
        parallel = {
            "micro_batch_size": args.per_device_train_batch_size,
            "grad_accum_steps": args.gradient_accumulation_steps,
            "dp_size": args.world_size,
            "drop_last": args.dataloader_drop_last,
            **({"loss_normalization": normalization} if normalization else {}),
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
            model=model,
            optimizer=kwargs.get("optimizer"),
            scheduler=kwargs.get("lr_scheduler"),
            dataloader=_loaders(kwargs),
            parallel=parallel,
            precision={k: v for k, v in precision.items() if v is not None},
            extra={
                "hf_training_args": {
                    **recorded_args(args),
                    "model_accepts_loss_kwargs": accepts_loss_kwargs(model),
                }
            },
            **{k: v for k, v in self.capture_kwargs.items() if k not in ("parallel", "precision")},
        )
        if path is not None:
            self.written.append(path)


def _loaders(callback_kwargs: dict[str, Any]) -> Any:
    """The Trainer's loaders by name (train, eval) for the capture, or the training one alone."""
    named = {
        name: loader
        for name, loader in (
            ("train", callback_kwargs.get("train_dataloader")),
            ("eval", callback_kwargs.get("eval_dataloader")),
        )
        if loader is not None
    }
    return named if len(named) > 1 else named.get("train")
