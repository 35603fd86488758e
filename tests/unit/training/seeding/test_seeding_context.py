"""`envsnap.deterministic` puts back exactly what was there before, also when the body raises."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import numpy as np
import pytest
import torch

import envsnap
from envsnap.training.seeding import DeterminismWarning, SeedManager, last_applied
from envsnap.training.seeding.manager import late_cublas_warning

ENV = "CUBLAS_WORKSPACE_CONFIG"


@pytest.fixture(autouse=True)
def isolated_flags(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep the process-wide flags this file changes from leaking into other tests."""
    monkeypatch.delenv(ENV, raising=False)
    saved = (
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    yield
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = saved[:2]
    torch.use_deterministic_algorithms(saved[2], warn_only=saved[3])


def _flags() -> tuple[bool, bool, bool, bool]:
    return (
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )


def _draws() -> tuple[float, float, float]:
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def _set_unusual_previous_state() -> None:
    # Non-default values everywhere, so "restored" cannot pass by resetting to defaults.
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.benchmark = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    random.seed(123)
    np.random.seed(456)
    torch.manual_seed(789)


def test_inside_the_block_everything_is_deterministic() -> None:
    with envsnap.deterministic(1, warn_only=True) as manager:
        assert _flags() == (True, False, True, True)
        assert os.environ[ENV] == ":4096:8"
        assert manager.level == "deterministic"
        assert last_applied() is manager
        assert torch.initial_seed() == manager.derive("torch")


def test_restores_non_default_flags_absent_env_var_and_rng_states() -> None:
    _set_unusual_previous_state()
    before_flags = _flags()
    expected = _draws()
    _set_unusual_previous_state()
    with envsnap.deterministic(5, cublas_workspace_config=":16:8"):
        assert os.environ[ENV] == ":16:8"
        _draws()
    assert ENV not in os.environ
    assert _flags() == before_flags == (False, True, True, True)
    assert _draws() == expected


def test_restores_a_previous_env_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, ":16:8")
    with envsnap.deterministic(5):
        assert os.environ[ENV] == ":4096:8"
    assert os.environ[ENV] == ":16:8"


def test_restores_everything_when_the_body_raises() -> None:
    _set_unusual_previous_state()
    previous_manager = SeedManager(77)
    previous_manager.seed_all()
    _set_unusual_previous_state()
    before_flags = _flags()
    expected = _draws()
    _set_unusual_previous_state()
    with pytest.raises(KeyError, match="boom"), envsnap.deterministic(5):
        _draws()
        raise KeyError("boom")
    assert ENV not in os.environ
    assert _flags() == before_flags
    assert _draws() == expected
    assert last_applied() is previous_manager


def test_restores_named_generators() -> None:
    loader = torch.Generator().manual_seed(3)
    expected = float(torch.rand(1, generator=loader))
    loader.manual_seed(3)
    with envsnap.deterministic(5, generators={"loader": loader}):
        torch.rand(4, generator=loader)
    assert float(torch.rand(1, generator=loader)) == expected


def test_seeded_level_leaves_flags_and_env_alone() -> None:
    _set_unusual_previous_state()
    before = _flags()
    with envsnap.deterministic(5, level="seeded") as manager:
        assert _flags() == before
        assert ENV not in os.environ
        assert manager.flags is None
        assert manager.seeded["torch"] == torch.initial_seed()


def test_off_level_seeds_nothing() -> None:
    torch.manual_seed(31)
    manager = SeedManager(5)
    assert manager.apply("off") is None
    assert manager.seeded == {}
    assert torch.initial_seed() == 31
    assert manager.level == "off"


def test_rejects_unknown_level_and_workspace_config() -> None:
    manager = SeedManager(5)
    with pytest.raises(ValueError, match="level"):
        manager.apply("strict")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cublas_workspace_config"):
        manager.apply("deterministic", cublas_workspace_config=":1:1")


def test_late_cublas_setting_is_warned_about() -> None:
    # CUDA cannot be initialised on this CPU-only machine, so the decision is tested directly.
    message = late_cublas_warning(True, None, ":4096:8")
    assert message is not None
    assert "CUDA is already initialised" in message and "may have no effect" in message
    assert "it was unset" in message
    assert "it was :16:8" in (late_cublas_warning(True, ":16:8", ":4096:8") or "")
    # Already set to the wanted value before CUDA started: nothing to warn about.
    assert late_cublas_warning(True, ":4096:8", ":4096:8") is None
    assert late_cublas_warning(False, None, ":4096:8") is None


def test_no_warning_when_cuda_is_not_initialised() -> None:
    import warnings

    manager = SeedManager(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeterminismWarning)
        flags = manager.apply("deterministic", warn_only=True)
    assert flags is not None and flags.cuda_initialized_before is False
    assert manager.warnings == []
