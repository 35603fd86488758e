"""Real small jobs on CPU: wrapped models, prepared data loaders, loss normalisation.

DDP runs with world_size 1 over gloo; torch.compile's OptimizedModule is the real wrapper (it
compiles lazily, on the first call, which these tests never make); accelerate and the
Trainer build their own loaders.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import envsnap
from envsnap.diff import diff_manifests
from envsnap.manifest.model import Manifest, load

torch = pytest.importorskip("torch")


class Net(torch.nn.Module):  # type: ignore[misc,name-defined]
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def forward(self, x: Any) -> Any:
        return self.layer(x)


def _capture(tmp_path: Path, name: str, **inputs: Any) -> Manifest:
    path = tmp_path / f"{name}.json"
    envsnap.capture(path, only=["precision", "parallel"], **inputs)
    return load(path)


@pytest.fixture
def gloo_group(tmp_path: Path) -> Any:
    dist = pytest.importorskip("torch.distributed")
    store = tmp_path / "store"
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    try:
        yield dist
    finally:
        dist.destroy_process_group()


def test_ddp_model_is_recorded_as_the_inner_model(tmp_path: Path, gloo_group: Any) -> None:
    torch.manual_seed(0)
    plain = Net()
    single = _capture(tmp_path, "single", model=plain)
    wrapped = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True)
    ddp = _capture(tmp_path, "ddp", model=wrapped)
    assert ddp.precision is not None and single.precision is not None
    assert ddp.precision.model_class == single.precision.model_class
    assert ddp.precision.model_class.endswith(".Net")
    assert ddp.parallel is not None
    assert ddp.parallel.model_wrappers == ["torch.nn.parallel.distributed.DistributedDataParallel"]
    assert ddp.parallel.strategy == "ddp" and ddp.parallel.ddp_find_unused_parameters is True
    report = diff_manifests(single, ddp)
    assert not [f for f in report.findings if f.title.startswith("model changed")]
    assert [f for f in report.findings if f.path == "parallel.model_wrappers"]


def test_compiled_and_data_parallel_models_are_unwrapped(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        # torch's own modules, imported by the first torch.compile, use a deprecated jit API.
        warnings.filterwarnings("ignore", ".*torch.jit.script_method", DeprecationWarning)
        compiled = torch.compile(Net())
    assert type(compiled).__name__ == "OptimizedModule"  # the real wrapper, not a stand-in
    manifest = _capture(tmp_path, "compiled", model=torch.nn.DataParallel(compiled))
    assert manifest.precision is not None and manifest.precision.model_class.endswith(".Net")
    assert manifest.parallel is not None
    assert manifest.parallel.model_wrappers == [
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch._dynamo.eval_frame.OptimizedModule",
    ]
    assert manifest.precision.params["float32"].elements == 5


def test_accelerate_prepared_loader_is_read_through_its_batch_sampler(tmp_path: Path) -> None:
    accelerate = pytest.importorskip("accelerate")
    rows = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    config = accelerate.DataLoaderConfiguration(use_seedable_sampler=True)
    accelerator = accelerate.Accelerator(cpu=True, dataloader_config=config)
    loader = accelerator.prepare(torch.utils.data.DataLoader(rows, batch_size=4, shuffle=True))
    assert loader.batch_size is None  # what the loader itself says
    assert type(loader.sampler).__name__ == "SequentialSampler"
    manifest = _capture(tmp_path, "accelerate", dataloader=loader, parallel={"grad_accum_steps": 2})
    parallel = manifest.parallel
    assert parallel is not None and parallel.dataloader is not None
    sampler = parallel.dataloader.sampler
    assert sampler is not None and sampler.class_name.endswith("SeedableRandomSampler")
    assert sampler.shuffle is True and sampler.seed is not None
    assert parallel.dataloader.batch_size == 4 and parallel.micro_batch_size == 4
    assert parallel.global_batch == 8 and parallel.global_batch_formula == "4 x 1 x 2 = 8"


def test_fully_sharded_model_keeps_its_own_class(tmp_path: Path, gloo_group: Any) -> None:
    fsdp = pytest.importorskip("torch.distributed.fsdp")
    model = Net()
    fsdp.fully_shard(model)  # swaps the class for a generated FSDPNet subclass
    assert type(model).__name__ == "FSDPNet"
    manifest = _capture(tmp_path, "fsdp2", model=model)
    assert manifest.precision is not None and manifest.precision.model_class.endswith(".Net")
    assert manifest.parallel is not None and manifest.parallel.strategy == "fsdp"
    assert manifest.parallel.model_wrappers == ["torch.distributed.fsdp.FSDPModule"]
