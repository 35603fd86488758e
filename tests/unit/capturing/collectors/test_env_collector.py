"""The `env` collector: result-relevant families, configurable selection, secrets redacted."""

from __future__ import annotations

import json
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.collectors.env import collect
from envsnap.capturing.config import CaptureConfig
from envsnap.manifest.records import plain
from envsnap.manifest.sections.env import EnvSection
from tests.helpers import capture_context

ENV = {
    "CUDA_VISIBLE_DEVICES": "0,1",
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
    "NCCL_ALGO": "Ring",
    "OMP_NUM_THREADS": "8",
    "PYTHONHASHSEED": "0",
    "WORLD_SIZE": "16",
    "LOCAL_RANK": "3",
    "MASTER_PORT": "29500",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
    "HF_TOKEN": "plain-hf-secret",
    "HF_ENDPOINT": "https://user:endpoint-pw@hub.example.com",
    "TORCH_CACHE_KEY": "plain-torch-secret",
    "HOME": "/root",
    "PATH": "/usr/bin",
    "WANDB_API_KEY": "not-in-a-family",
    "MYAPP_CUDA_X": "prefix must match at the start",
}


def _collect(env: dict[str, str], config: CaptureConfig | None = None) -> EnvSection:
    context = capture_context(Path.cwd(), env=env)
    if config is not None:
        context.config = config
    return collect(context)


def test_families_and_launcher_names_are_selected() -> None:
    section = _collect(ENV)
    assert set(section.variables) == {
        "CUDA_VISIBLE_DEVICES",
        "CUBLAS_WORKSPACE_CONFIG",
        "NCCL_ALGO",
        "OMP_NUM_THREADS",
        "PYTHONHASHSEED",
        "WORLD_SIZE",
        "LOCAL_RANK",
        "MASTER_PORT",
        "TOKENIZERS_PARALLELISM",
        "HF_HUB_DISABLE_IMPLICIT_TOKEN",
        "HF_TOKEN",
        "HF_ENDPOINT",
        "TORCH_CACHE_KEY",
    }
    assert list(section.variables) == sorted(section.variables)


def test_secrets_are_redacted_and_lookalikes_kept() -> None:
    section = _collect(ENV)
    assert section.variables["HF_TOKEN"] == "<redacted>"
    assert section.variables["TORCH_CACHE_KEY"] == "<redacted>"
    assert section.variables["HF_ENDPOINT"] == "https://<redacted>@hub.example.com"
    assert section.redacted == ["HF_ENDPOINT", "HF_TOKEN", "TORCH_CACHE_KEY"]
    assert section.variables["TOKENIZERS_PARALLELISM"] == "false"
    assert section.variables["HF_HUB_DISABLE_IMPLICIT_TOKEN"] == "1"
    assert section.variables["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    dumped = json.dumps(plain(section))
    for secret in ("plain-hf-secret", "endpoint-pw", "plain-torch-secret", "not-in-a-family"):
        assert secret not in dumped


def test_families_are_configurable() -> None:
    config = CaptureConfig(
        env_prefixes=("MYAPP_",), env_names=("HOME",), env_exclude=("MYAPP_CUDA_X",)
    )
    section = _collect({**ENV, "MYAPP_SEED": "7"}, config)
    assert section.variables == {"HOME": "/root", "MYAPP_SEED": "7"}
    assert section.prefixes == ["MYAPP_"] and section.names == ["HOME"]


def test_an_excluded_name_is_not_listed_as_looked_for() -> None:
    # A reader takes a listed name that is absent from `variables` as unset: an excluded one
    # was never looked at.
    config = CaptureConfig(env_names=("HOME", "PYTHONHASHSEED"), env_exclude=("PYTHONHASHSEED",))
    section = _collect({**ENV, "PYTHONHASHSEED": "0"}, config)
    assert "PYTHONHASHSEED" not in section.variables
    assert "PYTHONHASHSEED" not in section.names and "HOME" in section.names


def test_empty_environment() -> None:
    section = _collect({})
    assert section.variables == {} and section.redacted == []
    assert "CUDA_" in section.prefixes and "WORLD_SIZE" in section.names


def test_device_uuids_in_visible_devices_are_hashed(tmp_path: Path) -> None:
    from envsnap.capturing.collectors.env import collect

    uuid = "GPU-8a3b1c2d-1111-2222-3333-444455556666"
    context = CaptureContext(env={"CUDA_VISIBLE_DEVICES": f"{uuid},1"}, cwd=tmp_path)
    value = collect(context).variables["CUDA_VISIBLE_DEVICES"]
    assert uuid not in value
    assert value.startswith("GPU-#") and value.endswith(",1")
