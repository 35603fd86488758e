"""The `precision` section: tensor dtypes, autocast, loss scaling, optimizer and scheduler.

"Used BF16" does not describe precision: storage dtype, autocast dtype, accumulation, gradient
and optimizer-state dtypes and loss scaling each change numerics, so each has its own field.
Dicts are keyed by identity (dtype name, device type, state key) so a diff matches like with like.
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from envsnap.manifest.sections.base import Model, Section


class DtypeStats(Model):
    """How much of a model lives in one dtype."""

    tensors: int = Field(description="Number of tensors of this dtype.")
    elements: int = Field(description="Total number of elements (numel) of those tensors.")
    bytes: int = Field(description="Total storage bytes (elements x element size).")


class AutocastState(Model):
    """Autocast as seen at capture for one device type."""

    enabled: bool = Field(description="torch.is_autocast_enabled(device_type) at capture.")
    dtype: str | None = Field(
        default=None, description="torch.get_autocast_dtype(device_type), e.g. bfloat16."
    )


class ScalerState(Model):
    """A torch.amp.GradScaler (loss scaling for float16)."""

    class_name: str = Field(description="Qualified class name of the scaler.")
    enabled: bool = Field(description="Whether the scaler is enabled.")
    device: str | None = Field(default=None, description="Device type the scaler works on.")
    scale: float | None = Field(default=None, description="Current loss scale.")
    growth_factor: float | None = Field(default=None, description="Scale growth factor.")
    backoff_factor: float | None = Field(default=None, description="Scale backoff factor.")
    growth_interval: int | None = Field(
        default=None, description="Steps without overflow before the scale grows."
    )


class OptimizerInfo(Model):
    """The optimizer's class, hyperparameters and state dtypes."""

    class_name: str = Field(description="Qualified class name, e.g. torch.optim.adamw.AdamW.")
    param_groups: dict[str, dict[str, JsonValue]] = Field(
        description="Hyperparameters per param group, keyed by group index ('0', '1', ...): "
        "lr, betas/momentum, eps, weight_decay, foreach, fused, capturable, amsgrad... plus "
        "'num_tensors' and 'num_elements' of the group's parameters."
    )
    state_dtypes: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Optimizer state key (exp_avg, exp_avg_sq, step...) -> dtype -> tensor count. "
        "Empty before the first step.",
    )
    steps: int | None = Field(
        default=None,
        description="Largest per-parameter 'step' in the optimizer state (completed updates); "
        "null when the state has no step counter.",
    )


class SchedulerInfo(Model):
    """A learning-rate scheduler."""

    class_name: str = Field(description="Qualified class name of the scheduler.")
    state: dict[str, JsonValue] = Field(
        description="Scalar entries of the scheduler's state_dict (last_epoch, base_lrs, "
        "_step_count...). Callables and tensors are left out."
    )
    last_lr: list[float] | None = Field(
        default=None, description="get_last_lr(): the learning rate per param group."
    )


class PrecisionDeclared(Model):
    """Precision facts a job declares because they cannot be read from live objects."""

    amp_dtype: str | None = Field(
        default=None,
        description="Declared autocast dtype used in the training step (bfloat16, float16, "
        "or 'none'); autocast is usually not active at the moment of capture.",
    )
    matmul_input_precision: str | None = Field(
        default=None, description="Declared matmul input precision (fp32, tf32, bf16, fp8...)."
    )
    accumulation_dtype: str | None = Field(
        default=None, description="Declared accumulation dtype (e.g. float32)."
    )
    grad_dtype: str | None = Field(default=None, description="Declared gradient dtype.")
    optimizer_state_dtype: str | None = Field(
        default=None, description="Declared optimizer-state dtype (when not yet observable)."
    )
    master_weights_dtype: str | None = Field(
        default=None, description="Declared dtype of master weights, when kept separately."
    )
    fsdp_param_dtype: str | None = Field(
        default=None, description="FSDP MixedPrecision param_dtype."
    )
    fsdp_reduce_dtype: str | None = Field(
        default=None, description="FSDP MixedPrecision reduce_dtype (gradient reduction)."
    )
    fsdp_buffer_dtype: str | None = Field(
        default=None, description="FSDP MixedPrecision buffer_dtype."
    )
    fp8_recipe: str | None = Field(
        default=None, description="FP8 recipe (e.g. Transformer Engine DelayedScaling...)."
    )
    device: str | None = Field(
        default=None,
        description="Device type the job's math runs on ('cuda', 'cpu', 'mps', 'xpu'...; "
        "'mixed' when it spans several). Declared for a capture taken before the model moves "
        "to its device or without a model (then `sources` names it); otherwise the device type "
        "of the model's parameters.",
    )
    other: dict[str, JsonValue] = Field(
        default_factory=dict, description="Any other declared precision facts, free-form."
    )


class PrecisionSection(PrecisionDeclared, Section):
    """Dtypes, autocast, loss scaling, optimizer and scheduler, plus declared precision facts."""

    params: dict[str, DtypeStats] = Field(
        default_factory=dict, description="Model parameters per dtype name (float32, bfloat16)."
    )
    buffers: dict[str, DtypeStats] = Field(
        default_factory=dict, description="Model buffers per dtype name."
    )
    grads: dict[str, DtypeStats] = Field(
        default_factory=dict,
        description="Existing .grad tensors per dtype name (empty before the first backward).",
    )
    trainable_elements: int | None = Field(
        default=None, description="Elements of parameters with requires_grad=True."
    )
    model_class: str | None = Field(
        default=None, description="Qualified class name of the model object passed in."
    )
    params_device: str | None = Field(
        default=None,
        description="Device type the model's parameters lived on at capture ('cuda', 'cpu', "
        "'mps'; 'mixed' when they span several types); null without a model.",
    )
    autocast: dict[str, AutocastState] = Field(
        default_factory=dict, description="Autocast state at capture, keyed by device type."
    )
    scaler: ScalerState | None = Field(default=None, description="GradScaler, when given.")
    optimizer: OptimizerInfo | None = Field(default=None, description="Optimizer, when given.")
    scheduler: SchedulerInfo | None = Field(default=None, description="LR scheduler, when given.")
    sources: dict[str, str] = Field(
        default_factory=dict,
        description="Where each declared field came from: 'config' (file or --set) or 'api'.",
    )
