"""The field corpus's training job: a tiny real torch job that captures itself with envsnap.

The capture route copies this file into a temporary git repository as `train.py` and runs it
there in a fresh interpreter with one side's environment; `FIELD_JOB_SPEC` names the JSON spec
the route wrote (the side's `job` settings, its data files, where to write the manifest, the
label and extra the capture carries, and for the nvml route the NVML stand-in to install).
The job applies the settings the way a real script does (imports of planted packages, torch
flags, SDPA backends, seeds, dtypes, autocast, one DataLoader per named loader), trains a small
MLP for a few optimizer steps on random data drawn from a fixed seed, then calls
`envsnap.capture(...)` with its live objects. Nothing is written into the manifest afterwards.

Only `train.py`'s own text is tracked in the repository; `LOG_EVERY` is the line a "changed"
commit or a dirty tree edits.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

LOG_EVERY = 10
DATA_SEED = 1234  # the dataset is the same on every side; the job's own seed is separate
SAMPLES, FEATURES, STEPS = 64, 8, 4


def _dtype(torch: Any, name: str | None) -> Any:
    return None if name is None else getattr(torch, name)


def _flags(torch: Any, job: dict[str, Any]) -> None:
    """torch's global settings, set before any work as a script sets them."""
    if "threads" in job:
        torch.set_num_threads(job["threads"])
    if "interop_threads" in job:
        torch.set_num_interop_threads(job["interop_threads"])
    if "deterministic" in job:
        torch.use_deterministic_algorithms(job["deterministic"])
    cudnn = torch.backends.cudnn
    for key, attribute in (
        ("cudnn_benchmark", "benchmark"),
        ("cudnn_deterministic", "deterministic"),
        ("cudnn_enabled", "enabled"),
        ("cudnn_allow_tf32", "allow_tf32"),
    ):
        if key in job:
            setattr(cudnn, attribute, job[key])
    if "allow_tf32" in job:
        torch.backends.cuda.matmul.allow_tf32 = job["allow_tf32"]
    for backend, enabled in job.get("sdpa", {}).items():
        # What `sdpa_kernel(...)` or `enable_cudnn_sdp(False)` in a script pins.
        getattr(torch.backends.cuda, f"enable_{backend}_sdp")(enabled)
    if "float32_matmul_precision" in job:
        torch.set_float32_matmul_precision(job["float32_matmul_precision"])
    if "mkldnn_fp32_precision" in job:
        mkldnn = torch.backends.mkldnn
        if hasattr(mkldnn, "fp32_precision"):
            mkldnn.fp32_precision = job["mkldnn_fp32_precision"]
    if "default_dtype" in job:
        torch.set_default_dtype(_dtype(torch, job["default_dtype"]))


def _seeds(job: dict[str, Any]) -> Any:
    """A SeedManager seeding python, numpy and torch (seed 0 unless the side says otherwise);
    None for an unseeded job."""
    import envsnap

    seed = job.get("seed", 0)
    if seed is None:
        return None
    manager = envsnap.SeedManager(seed)
    manager.seed_all()
    return manager


def _loader(torch: Any, dataset: Any, settings: dict[str, Any], seeds: Any) -> Any:
    from torch.utils.data import DataLoader

    generator = None
    if settings.get("generator_seed") is not None:
        generator = torch.Generator().manual_seed(settings["generator_seed"])
    worker_init = seeds.worker_init_fn() if settings.get("worker_init_fn") and seeds else None
    return DataLoader(
        dataset,
        batch_size=settings.get("batch_size", 8),
        num_workers=settings.get("num_workers", 0),
        shuffle=settings.get("shuffle", False),
        drop_last=settings.get("drop_last", False),
        worker_init_fn=worker_init,
        generator=generator,
    )


def main() -> int:
    with open(os.environ["FIELD_JOB_SPEC"], encoding="utf-8") as handle:
        spec = json.load(handle)
    if spec.get("nvml") is not None:
        # The NVML stand-in comes from the project's tests; the job reaches it by path.
        sys.path.append(spec["project_root"])
        from tests.field.standin import install

        install(spec["nvml"])

    import torch
    from torch.utils.data import TensorDataset

    import envsnap

    job: dict[str, Any] = spec["job"]
    for module in job.get("imports", []):
        importlib.import_module(module)  # the planted packages the incident's job imported
    _flags(torch, job)
    seeds = _seeds(job)
    data = torch.Generator().manual_seed(DATA_SEED)
    dtype = torch.get_default_dtype()
    inputs = torch.randn(SAMPLES, FEATURES, generator=data).to(dtype)
    targets = torch.randn(SAMPLES, 1, generator=data).to(dtype)
    dataset = TensorDataset(inputs, targets)
    loaders_spec = job.get("loaders") or {"train": {}}
    loaders = {name: _loader(torch, dataset, loaders_spec[name], seeds) for name in loaders_spec}

    model: Any = torch.nn.Sequential(
        torch.nn.Linear(FEATURES, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)
    )
    if "model_dtype" in job:
        model = model.to(_dtype(torch, job["model_dtype"]))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    forward = torch.compile(model) if job.get("compile") else model
    amp = _dtype(torch, job.get("amp_dtype"))
    accum = job.get("grad_accum", 1)
    train = loaders.get("train") or next(iter(loaders.values()))
    model_dtype = next(model.parameters()).dtype
    for step, (x, y) in enumerate(train):
        if step >= STEPS * accum:
            break
        if amp is not None:
            with torch.autocast(device_type="cpu", dtype=amp):
                loss = torch.nn.functional.mse_loss(forward(x.to(model_dtype)), y.to(model_dtype))
        else:
            loss = torch.nn.functional.mse_loss(forward(x.to(model_dtype)), y.to(model_dtype))
        (loss / accum).backward()
        if (step + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
        if step % LOG_EVERY == 0:
            print(f"step {step} loss {loss.item():.4f}")
    if "eval" in loaders:
        with torch.no_grad():
            for x, _ in loaders["eval"]:
                forward(x.to(model_dtype))

    precision: dict[str, Any] = {"amp_dtype": job.get("amp_dtype") or "none"}
    if spec.get("device") is not None:
        precision["device"] = spec["device"]
    parallel: dict[str, Any] = {"grad_accum_steps": accum}
    if "world_size" in job:
        parallel["dp_size"] = job["world_size"]
    if "loss_normalization" in job:
        parallel["loss_normalization"] = job["loss_normalization"]
    # The train loader alone as the API's single loader; named loaders when the job has several.
    envsnap.capture(
        spec["out"],
        model=model,
        optimizer=optimizer,
        dataloader=loaders if len(loaders) > 1 else train,
        seeds=seeds,
        precision=precision,
        parallel=parallel,
        data=spec.get("data") or None,
        label=spec["label"],
        extra=spec["extra"],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
