"""Probe tests change torch's global settings on purpose; put every one back after each test.

Written out here rather than through envsnap.probe.state, so a bug in the code under test
cannot leak one test's settings into the next.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

# (owner, attribute) pairs in restore order: the legacy matmul precision first, since setting it
# rewrites the fp32_precision attributes after it.
_ATTRIBUTES = (
    (torch.backends.cuda.matmul, "allow_tf32"),
    (torch.backends.cudnn, "allow_tf32"),
    (torch.backends.cudnn, "benchmark"),
    (torch.backends.cudnn, "deterministic"),
    (torch.backends.cudnn, "enabled"),
    (torch.backends.mkldnn, "enabled"),
    (torch.backends.mkldnn, "deterministic"),
    (torch.backends.mkldnn.matmul, "fp32_precision"),
    (torch.backends.mkldnn.conv, "fp32_precision"),
    (torch.backends.mkldnn.rnn, "fp32_precision"),
    (torch.backends.mkldnn, "fp32_precision"),
)


@pytest.fixture(autouse=True)
def _restore_torch_settings() -> Iterator[None]:
    threads = torch.get_num_threads()
    dtype = torch.get_default_dtype()
    grad = torch.is_grad_enabled()
    deterministic = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    precision = torch.get_float32_matmul_precision()
    attributes: list[tuple[Any, str, Any]] = [
        (owner, name, getattr(owner, name)) for owner, name in _ATTRIBUTES
    ]
    rng = torch.get_rng_state()
    yield
    torch.set_num_threads(threads)
    torch.set_default_dtype(dtype)
    torch.set_grad_enabled(grad)
    torch.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
    torch.set_float32_matmul_precision(precision)
    for owner, name, value in attributes:
        setattr(owner, name, value)
    torch.set_rng_state(rng)
