"""The precision section from a real CPU model, optimizer, scheduler and GradScaler."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.collectors.precision import collect
from envsnap.capturing.config import CaptureConfig

torch = pytest.importorskip("torch")


def _context(tmp_path: Path, config: CaptureConfig | None = None, **inputs: Any) -> CaptureContext:
    return CaptureContext(
        env={},
        cwd=tmp_path,
        config=config or CaptureConfig(),
        inputs=inputs,
        deadline=time.monotonic() + 30,
    )


def _job() -> tuple[Any, Any, Any, Any]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.Linear(16, 2)
    )
    model[2].to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5**step)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=50)
    return model, optimizer, scheduler, scaler


def _step(model: Any, optimizer: Any, scheduler: Any, scaler: Any) -> None:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(torch.randn(4, 8)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()


def test_dtype_histograms_count_elements_and_bytes(tmp_path: Path) -> None:
    model, *_ = _job()
    section = collect(_context(tmp_path, model=model))
    assert section.params["float32"].tensors == 4  # two weights+biases of Linear/BatchNorm
    assert section.params["float32"].elements == 8 * 16 + 16 + 16 + 16
    assert section.params["bfloat16"].elements == 16 * 2 + 2
    assert section.params["bfloat16"].bytes == (16 * 2 + 2) * 2
    assert set(section.buffers) == {"float32", "int64"}  # running stats + num_batches_tracked
    assert section.grads == {}
    assert section.model_class == "torch.nn.modules.container.Sequential"
    assert section.trainable_elements == sum(p.numel() for p in model.parameters())


def test_optimizer_scheduler_scaler_after_a_real_step(tmp_path: Path) -> None:
    model, optimizer, scheduler, scaler = _job()
    _step(model, optimizer, scheduler, scaler)
    section = collect(
        _context(tmp_path, model=model, optimizer=optimizer, scheduler=scheduler, scaler=scaler)
    )
    assert section.optimizer is not None
    assert section.optimizer.class_name == "torch.optim.adamw.AdamW"
    group = section.optimizer.param_groups["0"]
    assert group["betas"] == [0.9, 0.95] and group["weight_decay"] == 0.1
    assert group["lr"] == pytest.approx(1e-3 * 0.5)
    assert {"eps", "amsgrad", "foreach", "fused", "capturable"} <= set(group)
    assert group["num_tensors"] == 6
    assert section.optimizer.state_dtypes["exp_avg"] == {"bfloat16": 2, "float32": 4}
    assert section.optimizer.steps == 1
    assert section.scheduler is not None and section.scheduler.state["last_epoch"] == 1
    assert section.scheduler.last_lr == [pytest.approx(5e-4)]
    assert section.scaler is not None
    assert section.scaler.enabled is True and section.scaler.device == "cpu"
    assert section.scaler.growth_interval == 50 and section.scaler.scale == 1024.0
    assert set(section.grads) == {"float32", "bfloat16"}


def test_autocast_state_is_read_live(tmp_path: Path) -> None:
    outside = collect(_context(tmp_path))
    assert outside.autocast["cpu"].enabled is False
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = collect(_context(tmp_path))
    assert inside.autocast["cpu"].enabled is True and inside.autocast["cpu"].dtype == "bfloat16"


def test_declared_fields_from_config_and_api_with_sources(tmp_path: Path) -> None:
    config = CaptureConfig(declared={"precision": {"amp_dtype": "bfloat16", "grad_dtype": "fp32"}})
    section = collect(
        _context(
            tmp_path, config, precision={"grad_dtype": "bfloat16", "fsdp_reduce_dtype": "float32"}
        )
    )
    assert section.amp_dtype == "bfloat16" and section.sources["amp_dtype"] == "config"
    assert section.grad_dtype == "bfloat16" and section.sources["grad_dtype"] == "api"
    assert section.fsdp_reduce_dtype == "float32"


def test_wrong_objects_are_recorded_not_raised(tmp_path: Path) -> None:
    section = collect(_context(tmp_path, model=42, optimizer="adam", precision={"typo_field": 1}))
    assert "expected a torch.nn.Module" in section.unknown["model"]
    assert "expected a torch.optim.Optimizer" in section.unknown["optimizer"]
    assert "Extra inputs are not permitted" in section.unknown["declared.typo_field"]
    assert section.optimizer is None


def test_model_device_is_where_the_parameters_live() -> None:
    from envsnap.capturing.collectors.precision import model_device

    assert model_device(torch.nn.Linear(2, 2).parameters()) == "cpu"
    assert model_device([]) is None
