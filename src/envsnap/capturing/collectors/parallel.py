"""`parallel`: distributed layout, the derived global batch, loss normalisation, data loader.

Layout comes from a live `torch.distributed` group when one is initialised, else from the
launcher's environment (torchrun, SLURM). Batch semantics come from declarations and the data
loader. The global batch is derived, never guessed: a missing factor leaves it null and says
which factor in `unknown`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.injob import declared_values, loaded_torch, qualname
from envsnap.capturing.collectors.wrappers import unwrap
from envsnap.manifest.records import (
    DataLoaderInfo,
    ParallelSection,
    SamplerInfo,
)

_ENV_INTS = {
    "world_size": ("WORLD_SIZE", "SLURM_NTASKS"),
    "rank": ("RANK", "SLURM_PROCID"),
    "local_rank": ("LOCAL_RANK", "SLURM_LOCALID"),
    "local_world_size": ("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE"),
    "node_count": ("NNODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES"),
}


def _env_int(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[int, str] | None:
    for name in names:
        try:
            return int(env[name]), f"env:{name}"
        except (KeyError, ValueError):
            continue
    return None


def _set(section: ParallelSection, name: str, value: Any, source: str) -> None:
    """Fill a field unless a declaration already set it (declared values win)."""
    if value is None or section.sources.get(name) in ("config", "api"):
        return
    setattr(section, name, value)
    section.sources[name] = source


def _layout(section: ParallelSection, env: Mapping[str, str], torch: Any) -> None:
    for name, names in _ENV_INTS.items():
        found = _env_int(env, names)
        if found is not None:
            _set(section, name, found[0], found[1])
    dist = getattr(torch, "distributed", None) if torch is not None else None
    try:
        live = bool(dist is not None and dist.is_available() and dist.is_initialized())
    except Exception:  # a broken distributed build must not cost the section
        live = False
    if live and dist is not None:
        section.initialized = True
        section.backend = str(dist.get_backend())
        section.sources["backend"] = "torch.distributed"
        section.world_size, section.rank = int(dist.get_world_size()), int(dist.get_rank())
        section.sources["world_size"] = section.sources["rank"] = "torch.distributed"
    if section.node_count is None and section.world_size and section.local_world_size:
        _set(section, "node_count", section.world_size // section.local_world_size, "derived")


def _ddp_settings(section: ParallelSection, ddp: Any) -> None:
    cap = getattr(ddp, "bucket_bytes_cap", None)
    if isinstance(cap, int):
        _set(section, "ddp_bucket_cap_mb", cap / (1024 * 1024), "model")
    for attr in ("find_unused_parameters", "broadcast_buffers", "gradient_as_bucket_view"):
        value = getattr(ddp, attr, None)
        if isinstance(value, bool):
            _set(section, f"ddp_{attr}", value, "model")
    static = getattr(ddp, "static_graph", None)
    if isinstance(static, bool):
        _set(section, "ddp_static_graph", static, "model")


_STRATEGY = {
    "DistributedDataParallel": "ddp",
    "DataParallel": "dp",
    "FullyShardedDataParallel": "fsdp",
    "FSDPModule": "fsdp",
    "DeepSpeedEngine": "deepspeed",
}


def _wrapper(section: ParallelSection, model: Any) -> None:
    """The wrappers around the model (DDP, FSDP, torch.compile...) and their settings."""
    found = unwrap(model)
    section.model_wrappers = found.wrapper_names
    for wrapper, name in zip(found.wrappers, found.wrapper_names, strict=True):
        short = name.rsplit(".", 1)[-1]
        if short in _STRATEGY:
            _set(section, "strategy", _STRATEGY[short], "model")
        if short == "DistributedDataParallel":
            _ddp_settings(section, wrapper)


def _seed_of(generator: Any) -> int | None:
    initial_seed = getattr(generator, "initial_seed", None)
    return int(initial_seed()) if callable(initial_seed) else None


def _sampler(sampler: Any) -> SamplerInfo:
    names = {cls.__name__ for cls in type(sampler).__mro__}
    info = SamplerInfo(class_name=qualname(sampler))
    if "DistributedSampler" in names:
        info.shuffle = bool(getattr(sampler, "shuffle", False))
        info.seed = int(getattr(sampler, "seed", 0))
        info.epoch = int(getattr(sampler, "epoch", 0))
        info.num_replicas = int(getattr(sampler, "num_replicas", 1))
        info.rank = int(getattr(sampler, "rank", 0))
        info.drop_last = bool(getattr(sampler, "drop_last", False))
    elif "RandomSampler" in names:
        info.shuffle = True
        info.replacement = bool(getattr(sampler, "replacement", False))
        info.generator_seed = _seed_of(getattr(sampler, "generator", None))
        # accelerate's SeedableRandomSampler reseeds per epoch from these two.
        seed, epoch = getattr(sampler, "initial_seed", None), getattr(sampler, "epoch", None)
        info.seed = seed if isinstance(seed, int) else None
        info.epoch = epoch if isinstance(epoch, int) else None
    elif "SequentialSampler" in names:
        info.shuffle = False
    return info


@dataclass
class _Batching:
    """What the batch sampler chain says: the sampler that orders samples, the batch size, and
    accelerate's shard (a BatchSampler inside a BatchSamplerShard)."""

    sampler: Any = None
    batch_size: int | None = None
    drop_last: bool | None = None
    shard: Any = None


def _batching(loader: Any) -> _Batching:
    """Follow loader.batch_sampler (-> .batch_sampler ...) -> .sampler.

    A loader built with a batch sampler (accelerate, the Trainer) has `batch_size` None and a
    default SequentialSampler as `sampler`: the real ones live in the batch sampler.
    """
    found = _Batching()
    node = getattr(loader, "batch_sampler", None)
    for _ in range(4):
        if node is None:
            break
        if {cls.__name__ for cls in type(node).__mro__} & {"BatchSamplerShard"}:
            found.shard = found.shard or node
        size, drop = getattr(node, "batch_size", None), getattr(node, "drop_last", None)
        if found.batch_size is None and isinstance(size, int):
            found.batch_size = size
        if found.drop_last is None and isinstance(drop, bool):
            found.drop_last = drop
        inner = getattr(node, "sampler", None)
        if inner is not None:
            found.sampler = inner
            break
        node = getattr(node, "batch_sampler", None)
    return found


def _length(obj: Any) -> int | None:
    try:
        return len(obj)
    except Exception:  # iterable datasets and samplers without __len__
        return None


def _sampler_info(loader: Any, batching: _Batching) -> SamplerInfo | None:
    sampler = batching.sampler or getattr(loader, "sampler", None)
    if sampler is None:
        return None
    info = _sampler(sampler)
    shard = batching.shard
    if shard is not None:
        processes, index = (
            getattr(shard, "num_processes", None),
            getattr(shard, "process_index", None),
        )
        info.num_replicas = processes if isinstance(processes, int) else info.num_replicas
        info.rank = index if isinstance(index, int) else info.rank
        split = getattr(shard, "split_batches", None)
        info.split_batches = split if isinstance(split, bool) else None
    return info


def dataloader_info(loader: Any) -> DataLoaderInfo:
    """Settings of a DataLoader (duck-typed). Raises TypeError for something else."""
    if not all(hasattr(loader, a) for a in ("dataset", "batch_size", "num_workers")):
        raise TypeError(f"expected a torch.utils.data.DataLoader, got {type(loader).__name__}")
    worker_init = getattr(loader, "worker_init_fn", None)
    collate = getattr(loader, "collate_fn", None)
    batch_sampler = getattr(loader, "batch_sampler", None)
    batching = _batching(loader)
    own_batch = loader.batch_size is not None
    prefetch = getattr(loader, "prefetch_factor", None)
    timeout = getattr(loader, "timeout", None)
    return DataLoaderInfo(
        class_name=qualname(loader),
        batch_size=loader.batch_size if own_batch else batching.batch_size,
        drop_last=getattr(loader, "drop_last", None) if own_batch else batching.drop_last,
        num_workers=int(loader.num_workers),
        persistent_workers=getattr(loader, "persistent_workers", None),
        pin_memory=getattr(loader, "pin_memory", None),
        prefetch_factor=int(prefetch) if isinstance(prefetch, int) else None,
        timeout=float(timeout) if isinstance(timeout, (int, float)) else None,
        sampler=_sampler_info(loader, batching),
        batch_sampler_class=qualname(batch_sampler) if batch_sampler is not None else None,
        generator_seed=_seed_of(getattr(loader, "generator", None)),
        worker_init_fn=qualname(worker_init) if worker_init is not None else None,
        collate_fn=qualname(collate) if collate is not None else None,
        dataset_class=qualname(loader.dataset),
        dataset_length=_length(loader.dataset),
        batches_per_epoch=_length(loader),
    )


def _micro_batch(info: DataLoaderInfo) -> int | None:
    """Samples per process per step: the loader's batch, divided when accelerate splits it."""
    sampler = info.sampler
    if info.batch_size is None or sampler is None or not sampler.split_batches:
        return info.batch_size
    replicas = sampler.num_replicas or 1
    return info.batch_size // replicas if info.batch_size % replicas == 0 else None


def derive_global_batch(section: ParallelSection) -> None:
    """global_batch = micro_batch_size x dp_size x grad_accum_steps, and the consistency check."""
    if section.dp_size is None and section.world_size:
        model_parallel = math.prod(
            size or 1 for size in (section.tp_size, section.pp_size, section.cp_size)
        )
        if section.world_size % model_parallel == 0:
            _set(section, "dp_size", section.world_size // model_parallel, "derived")
    factors = {
        "micro_batch_size": section.micro_batch_size,
        "dp_size": section.dp_size,
        "grad_accum_steps": section.grad_accum_steps,
    }
    missing = [name for name, value in factors.items() if value is None]
    invalid = [
        f"{name}={value!r}" for name, value in factors.items() if value is not None and value < 1
    ]
    if missing:
        section.unknown["global_batch"] = f"not derived: {', '.join(missing)} unknown"
    elif invalid:
        # A zero or negative factor is a declaration mistake, not a batch of that size.
        section.unknown["global_batch"] = (
            f"not derived: {', '.join(invalid)} is not a positive count"
        )
    else:
        micro, dp, accum = (int(v or 0) for v in factors.values())
        section.global_batch = micro * dp * accum
        section.global_batch_formula = f"{micro} x {dp} x {accum} = {section.global_batch}"
        section.sources["global_batch"] = "derived"
    if section.global_batch is not None and section.global_batch_declared is not None:
        section.global_batch_consistent = section.global_batch == section.global_batch_declared


# Named loaders kept per capture: a job hands a few (train, eval, test), not hundreds.
MAX_NAMED_LOADERS = 32
_NAME_CHARS = 64


def _failure(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _named_loaders(section: ParallelSection, loaders: Mapping[Any, Any]) -> None:
    """dataloader={"train": ..., "eval": ...}: the one named 'train' (else the first) is the
    training loader the batch fields derive from; the others are recorded by name."""
    named = {str(key)[:_NAME_CHARS]: loader for key, loader in loaders.items()}
    training = "train" if "train" in named else next(iter(named), None)
    for index, (name, loader) in enumerate(named.items()):
        if index >= MAX_NAMED_LOADERS:
            section.unknown["dataloaders"] = (
                f"{len(named)} loaders given; the first {MAX_NAMED_LOADERS} are recorded"
            )
            break
        try:
            info = dataloader_info(loader)
        except Exception as exc:  # a wrong object costs only its own entry
            section.unknown["dataloader" if name == training else f"dataloaders.{name}"] = _failure(
                exc
            )
            continue
        if name == training:
            section.dataloader = info
        else:
            section.dataloaders[name] = info


def collect(context: CaptureContext) -> ParallelSection:
    declared, sources, problems = declared_values(context, "parallel")
    section = ParallelSection(**declared, sources=sources)
    section.unknown.update({f"declared.{k}": v for k, v in problems.items()})
    _layout(section, context.env, loaded_torch(context))
    model, loader = context.inputs.get("model"), context.inputs.get("dataloader")
    if model is not None:
        _wrapper(section, model)
    if isinstance(loader, Mapping):
        _named_loaders(section, loader)
    elif loader is not None:
        try:
            section.dataloader = dataloader_info(loader)
        except Exception as exc:  # a wrong object costs only the dataloader fields
            section.unknown["dataloader"] = _failure(exc)
    if section.dataloader is not None:
        _set(section, "micro_batch_size", _micro_batch(section.dataloader), "dataloader")
        _set(section, "drop_last", section.dataloader.drop_last, "dataloader")
    if not section.sources and loader is None and model is None:
        raise CollectorUnavailable("not distributed, and no parallel fields or data loader given")
    sampler = section.dataloader.sampler if section.dataloader is not None else None
    if section.world_size is None and sampler is not None and sampler.num_replicas is not None:
        _set(section, "world_size", sampler.num_replicas, "sampler")
    if section.world_size is None and not section.initialized:
        _set(section, "world_size", 1, "default")
    derive_global_batch(section)
    if section.loss_normalization is None:
        section.unknown["loss_normalization"] = "not declared (set parallel.loss_normalization)"
    section.sources = dict(sorted(section.sources.items()))
    return section


COLLECTOR = Collector(
    name="parallel",
    collect=collect,
    timeout_s=5.0,
    description="distributed layout, global batch, loss normalisation, data loader",
)
