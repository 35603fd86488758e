"""The collector registry: manifest section name -> collector. Nothing else lives here."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from envsnap.capturing.collectors.base import Collector

# Section name -> the module (in this package) whose COLLECTOR fills it, in manifest order.
_MODULES: dict[str, str] = {
    "code": "code",
    "python": "python",
    "packages": "packages",
    "system": "system",
    "env": "env",
    "gpu": "gpu",
    "cuda_stack": "cuda_stack",
    "torch": "torch_runtime",
    "precision": "precision",
    "parallel": "parallel",
    "data": "data",
    "tokenizer": "tokenizer",
    "templates": "templates",
    "seeds": "seeds",
    "placement": "placement",
    "probe": "probe",
}


class CollectorRegistry(Mapping[str, Collector]):
    """The registered collectors, each module imported when its collector is first looked up:
    a capture with --only imports only the collectors it runs."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, Collector] = {}

    def __getitem__(self, name: str) -> Collector:
        collector = self._loaded.get(name)
        if collector is None:
            module = importlib.import_module(f"{__name__}.{self._modules[name]}")
            collector = module.COLLECTOR
            if not isinstance(collector, Collector) or collector.name != name:
                raise TypeError(f"{module.__name__}.COLLECTOR is not the {name!r} collector")
            self._loaded[name] = collector
        return collector

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


COLLECTORS: Mapping[str, Collector] = CollectorRegistry(_MODULES)

__all__ = ["COLLECTORS", "Collector", "CollectorRegistry"]
