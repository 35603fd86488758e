"""Declared tables in [tool.envsnap] / envsnap.toml, and --set overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.capturing.config import CaptureConfig, apply_sets, load_config
from envsnap.errors import ConfigError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "envsnap.toml"
    path.write_text(text)
    return path


def test_tables_are_validated_and_aliases_resolved(tmp_path: Path) -> None:
    config = load_config(
        _write(
            tmp_path,
            """
budget_s = 20
redact = ["corp-[0-9a-f]{8}"]
[env]
extra_prefixes = ["MYLAB_"]
exclude = ["CUDA_VISIBLE_DEVICES"]
[parallel]
strategy = "fsdp"
micro_batch = 4
grad_accum = 8
global_batch = 256
loss_normalization = "per_token_mean"
[precision]
amp_dtype = "bfloat16"
fsdp_reduce_dtype = "float32"
[data]
mode = "sample"
paths = ["data/val.jsonl"]
[data.sources.train]
path = "data/train"
versions = { hf_repo = "org/set", hf_revision = "abc123" }
[tokenizer]
path = "tok"
[templates]
files = { chat = "chat.jinja" }
[seeds]
master = 42
""",
        )
    )
    parallel = config.declared["parallel"]
    assert parallel == {
        "strategy": "fsdp",
        "micro_batch_size": 4,
        "grad_accum_steps": 8,
        "global_batch_declared": 256,
        "loss_normalization": "per_token_mean",
    }
    assert config.declared["data"]["sources"]["train"]["versions"]["hf_revision"] == "abc123"
    assert config.declared["seeds"] == {"master": 42}  # other tables kept for their owners
    assert "MYLAB_" in config.env_prefixes and config.env_exclude == ("CUDA_VISIBLE_DEVICES",)
    assert config.redact_patterns == ("corp-[0-9a-f]{8}",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[parallel]\ngrad_acum = 8\n", "parallel.grad_acum: Extra inputs are not permitted"),
        ("[parallel]\nmicro_batch_size = 'four'\n", "parallel.micro_batch_size"),
        ("[data]\nmode = 'fast'\n", "data.mode: Input should be 'full', 'sample' or 'stat'"),
        ("[data]\nbudget_s = -1\n", "data.budget_s"),
        ("tokenizer = 'tok'\n", "[tokenizer] must be a table"),
    ],
)
def test_invalid_tables_give_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")) as info:
        load_config(_write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_set_overrides_one_value_and_parses_toml_values() -> None:
    base = CaptureConfig(declared={"parallel": {"grad_accum_steps": 4, "strategy": "ddp"}})
    config = apply_sets(
        base,
        [
            "parallel.grad_accum=8",
            "parallel.ddp_find_unused_parameters=true",
            "precision.amp_dtype=bfloat16",
            "data.paths=['a', 'b']",
            "data.sources.train.path=data/train",
        ],
    )
    assert config.declared["parallel"] == {
        "grad_accum_steps": 8,
        "strategy": "ddp",
        "ddp_find_unused_parameters": True,
    }
    assert config.declared["precision"] == {"amp_dtype": "bfloat16"}
    assert config.declared["data"]["paths"] == ["a", "b"]
    assert config.declared["data"]["sources"]["train"]["path"] == "data/train"
    assert base.declared["parallel"]["grad_accum_steps"] == 4  # the original is untouched


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("grad_accum=8", "expected section.field=value"),
        ("parallel.grad_accum", "expected section.field=value"),
        ("gpu.name=x", "unknown section 'gpu'"),
        ("parallel.grad_accum=eight", "parallel.grad_accum_steps"),
    ],
)
def test_bad_set_is_a_config_error(assignment: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        apply_sets(CaptureConfig(), [assignment])


def test_set_resolves_aliases_in_flag_order() -> None:
    config = apply_sets(CaptureConfig(), ["parallel.grad_accum=8", "parallel.grad_accum_steps=4"])
    assert config.declared["parallel"]["grad_accum_steps"] == 4
