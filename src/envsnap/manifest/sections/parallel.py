"""The `parallel` section: distributed layout, batch semantics and the data loader.

The global batch, the loss normalisation and dropped tail batches change *what is optimised*,
so they sit at the top level where a diff finds them first.
"""

from __future__ import annotations

from pydantic import Field, JsonValue

from envsnap.manifest.sections.base import Model, Section

# Loss normalisation modes envsnap names; any other declared string is kept as given.
LOSS_NORMALIZATION_MODES: tuple[str, ...] = (
    "per_sample_mean",
    "per_token_mean",
    "per_microbatch_mean",
    "sum",
)


class SamplerInfo(Model):
    """The data loader's sampler."""

    class_name: str = Field(description="Qualified class name of the sampler.")
    shuffle: bool | None = Field(
        default=None, description="Whether it shuffles (DistributedSampler, RandomSampler)."
    )
    seed: int | None = Field(
        default=None, description="DistributedSampler seed, or SeedableRandomSampler initial_seed."
    )
    epoch: int | None = Field(default=None, description="Sampler epoch (set_epoch).")
    num_replicas: int | None = Field(
        default=None,
        description="DistributedSampler replicas, or the processes an accelerate shard splits over.",
    )
    rank: int | None = Field(
        default=None, description="DistributedSampler rank, or the accelerate shard's process."
    )
    drop_last: bool | None = Field(
        default=None, description="DistributedSampler drop_last (drops the uneven tail)."
    )
    generator_seed: int | None = Field(
        default=None, description="initial_seed() of the sampler's own generator, when set."
    )
    split_batches: bool | None = Field(
        default=None,
        description="accelerate's BatchSamplerShard: whether each batch is split across the "
        "processes (the loader's batch size is then global) rather than one batch per process.",
    )
    replacement: bool | None = Field(default=None, description="RandomSampler replacement.")


class DataLoaderInfo(Model):
    """A torch.utils.data.DataLoader's settings."""

    class_name: str = Field(description="Qualified class name of the loader.")
    batch_size: int | None = Field(
        default=None, description="Per-process batch size; null with a custom batch_sampler."
    )
    drop_last: bool | None = Field(
        default=None, description="Whether the last short batch is dropped."
    )
    num_workers: int | None = Field(default=None, description="Worker processes.")
    persistent_workers: bool | None = Field(default=None, description="Workers kept across epochs.")
    pin_memory: bool | None = Field(default=None, description="Pinned host memory.")
    prefetch_factor: int | None = Field(
        default=None, description="Batches prefetched per worker (null with 0 workers)."
    )
    timeout: float | None = Field(default=None, description="Worker batch timeout, seconds.")
    sampler: SamplerInfo | None = Field(default=None, description="The sampler.")
    batch_sampler_class: str | None = Field(
        default=None, description="Qualified class name of the batch sampler."
    )
    generator_seed: int | None = Field(
        default=None,
        description="initial_seed() of the loader's generator; null when none is set (the "
        "order then comes from the global torch RNG).",
    )
    worker_init_fn: str | None = Field(
        default=None, description="Qualified name of worker_init_fn; null when unset."
    )
    collate_fn: str | None = Field(default=None, description="Qualified name of collate_fn.")
    dataset_class: str | None = Field(default=None, description="Qualified dataset class name.")
    dataset_length: int | None = Field(default=None, description="len(dataset), when defined.")
    batches_per_epoch: int | None = Field(default=None, description="len(loader), when defined.")


class ParallelDeclared(Model):
    """Layout and batch facts a job declares (config, --set or the API's parallel=)."""

    strategy: str | None = Field(
        default=None, description="ddp, fsdp, deepspeed, megatron, single... as declared."
    )
    zero_stage: int | None = Field(default=None, description="DeepSpeed ZeRO stage.")
    dp_size: int | None = Field(default=None, description="Data-parallel size.")
    tp_size: int | None = Field(default=None, description="Tensor-parallel size.")
    pp_size: int | None = Field(default=None, description="Pipeline-parallel size.")
    cp_size: int | None = Field(default=None, description="Context-parallel size.")
    ep_size: int | None = Field(default=None, description="Expert-parallel size.")
    micro_batch_size: int | None = Field(
        default=None, description="Samples per micro-batch per data-parallel rank."
    )
    grad_accum_steps: int | None = Field(
        default=None, description="Micro-batches accumulated per optimizer update."
    )
    global_batch_declared: int | None = Field(
        default=None,
        description="Global batch as declared (config key 'global_batch'); checked against "
        "the derived value.",
    )
    drop_last: bool | None = Field(
        default=None, description="Whether tail batches are dropped (declared or from the loader)."
    )
    loss_normalization: str | None = Field(
        default=None,
        description="How the loss is normalised across micro-batches and ranks: "
        "per_sample_mean, per_token_mean, per_microbatch_mean, sum, or a declared string.",
    )
    ddp_bucket_cap_mb: float | None = Field(default=None, description="DDP bucket_cap_mb.")
    ddp_find_unused_parameters: bool | None = Field(
        default=None, description="DDP find_unused_parameters."
    )
    ddp_broadcast_buffers: bool | None = Field(default=None, description="DDP broadcast_buffers.")
    ddp_gradient_as_bucket_view: bool | None = Field(
        default=None, description="DDP gradient_as_bucket_view."
    )
    ddp_static_graph: bool | None = Field(default=None, description="DDP static_graph.")
    node_count: int | None = Field(default=None, description="Number of nodes.")
    other: dict[str, JsonValue] = Field(
        default_factory=dict, description="Any other declared parallel facts, free-form."
    )


class ParallelSection(ParallelDeclared, Section):
    """Distributed layout, derived global batch, loss normalisation and the data loader."""

    initialized: bool = Field(
        default=False, description="torch.distributed was initialised at capture."
    )
    backend: str | None = Field(default=None, description="torch.distributed backend (nccl, gloo).")
    world_size: int | None = Field(default=None, description="Number of processes.")
    rank: int | None = Field(default=None, description="Global rank of the capturing process.")
    local_rank: int | None = Field(default=None, description="Rank within the node.")
    local_world_size: int | None = Field(default=None, description="Processes per node.")
    global_batch: int | None = Field(
        default=None,
        description="Derived global batch = micro_batch_size x dp_size x grad_accum_steps; "
        "null when a factor is unknown (see 'unknown').",
    )
    global_batch_formula: str | None = Field(
        default=None, description="The derivation, e.g. '8 x 4 x 2 = 64'."
    )
    global_batch_consistent: bool | None = Field(
        default=None,
        description="Whether the derived global batch equals global_batch_declared; null when "
        "either is missing.",
    )
    dataloader: DataLoaderInfo | None = Field(
        default=None,
        description="The training data loader: the one given, or of named loaders the one "
        "named 'train' (else the first). Batch fields derive from it.",
    )
    dataloaders: dict[str, DataLoaderInfo] = Field(
        default_factory=dict,
        description="The other loaders given by name (dataloader={'train': ..., 'eval': ...}), "
        "so an evaluation loader's drop_last or sampler is compared too; the training one is "
        "`dataloader`, recorded once.",
    )
    model_wrappers: list[str] = Field(
        default_factory=list,
        description="Classes wrapped around the model, outermost first: DistributedDataParallel, "
        "DataParallel, FullyShardedDataParallel (or FSDPModule for fully_shard), DeepSpeedEngine, "
        "OptimizedModule (torch.compile). The model itself is recorded unwrapped.",
    )
    sources: dict[str, str] = Field(
        default_factory=dict,
        description="Where each filled field came from: config, api, env, torch.distributed, "
        "model, dataloader or derived.",
    )
