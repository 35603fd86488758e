"""The collector registry: manifest section name -> collector. Nothing else lives here."""

from __future__ import annotations

from envsnap.capturing.collectors import (
    code,
    cuda_stack,
    data,
    env,
    gpu,
    packages,
    parallel,
    precision,
    python,
    seeds,
    system,
    templates,
    tokenizer,
    torch_runtime,
)
from envsnap.capturing.collectors.base import Collector

COLLECTORS: dict[str, Collector] = {
    collector.name: collector
    for collector in (
        code.COLLECTOR,
        python.COLLECTOR,
        packages.COLLECTOR,
        system.COLLECTOR,
        env.COLLECTOR,
        gpu.COLLECTOR,
        cuda_stack.COLLECTOR,
        torch_runtime.COLLECTOR,
        precision.COLLECTOR,
        parallel.COLLECTOR,
        data.COLLECTOR,
        tokenizer.COLLECTOR,
        templates.COLLECTOR,
        seeds.COLLECTOR,
    )
}

__all__ = ["COLLECTORS", "Collector"]
