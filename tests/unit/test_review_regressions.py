"""Fixes from review: each test pins one failure mode that once got through."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.config import CaptureConfig, apply_sets
from envsnap.capturing.redact import REDACTED, Redactor
from tests.conftest import FIXTURES


def test_signature_without_key_is_a_usage_error(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "m.json"
    shutil.copy(FIXTURES / "manifests" / "full.json", manifest)
    (tmp_path / "m.sig").write_text("garbage")
    result = run_cli("verify", str(manifest), "--signature", str(tmp_path / "m.sig"))
    assert result.code == 2
    assert "--key" in result.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_verify_refuses_a_named_pipe_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "verify", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "pipe" in done.stderr


def test_device_uuids_in_visible_devices_are_hashed(tmp_path: Path) -> None:
    from envsnap.capturing.collectors.env import collect

    uuid = "GPU-8a3b1c2d-1111-2222-3333-444455556666"
    context = CaptureContext(env={"CUDA_VISIBLE_DEVICES": f"{uuid},1"}, cwd=tmp_path)
    value = collect(context).variables["CUDA_VISIBLE_DEVICES"]
    assert uuid not in value
    assert value.startswith("GPU-#") and value.endswith(",1")


@pytest.mark.parametrize(
    "arg",
    [
        '--config={"wandb_api_key": "0123456789abcdef0123"}',
        '{"hf_token":"secretvalue123"}',
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abcDEF123==;EndpointSuffix=core",
    ],
)
def test_secrets_inside_json_and_connection_strings_are_redacted(arg: str) -> None:
    out = Redactor().redact_argv([arg])[0]
    assert REDACTED in out
    for secret in ("0123456789abcdef0123", "secretvalue123", "abcDEF123=="):
        assert secret not in out


def test_redaction_of_a_huge_unbroken_argument_finishes() -> None:
    """An open-ended pattern once made this quadratic (tens of seconds inside the job)."""
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.extend(Redactor().redact_argv(["a" * 200_000])))
    worker.start()
    worker.join(60)
    assert result == ["a" * 200_000]


def test_extra_with_nan_and_token_keys_keeps_the_manifest() -> None:
    from envsnap.capturing.api import capture

    token = "hf_" + "a" * 30
    manifest = capture(only=["python"], extra={"lr": float("nan"), token: 1})
    assert manifest.python is not None
    assert manifest.extra["lr"] == "nan"
    assert token not in json.dumps(manifest.extra)


def test_a_config_typo_does_not_empty_the_in_job_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envsnap.capturing.api import capture

    (tmp_path / "envsnap.toml").write_text("budget_s = 'ten'\n")
    monkeypatch.chdir(tmp_path)
    manifest = capture(only=["python"])
    assert manifest.python is not None
    assert "budget_s" in str(manifest.extra["config_error"])


def test_a_cache_file_that_is_not_an_object_counts_as_empty(tmp_path: Path) -> None:
    from envsnap.capturing.datacache import DigestCache

    path = tmp_path / "cache.json"
    path.write_text("[1, 2]")
    assert DigestCache(path).get("anything") is None


def test_set_resolves_aliases_in_flag_order() -> None:
    config = apply_sets(CaptureConfig(), ["parallel.grad_accum=8", "parallel.grad_accum_steps=4"])
    assert config.declared["parallel"]["grad_accum_steps"] == 4


def test_world_size_comes_from_a_distributed_sampler_before_a_default(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from envsnap.capturing.collectors.parallel import collect

    data = torch.utils.data.TensorDataset(torch.arange(16))
    sampler = torch.utils.data.DistributedSampler(data, num_replicas=2, rank=0)
    loader = torch.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
    context = CaptureContext(
        env={}, cwd=tmp_path, inputs={"dataloader": loader, "parallel": {"grad_accum_steps": 2}}
    )
    section = collect(context)
    assert section.world_size == 2
    assert section.global_batch == 16


def test_repository_git_refuses_to_read_is_an_error_not_an_empty_repo(
    make_repo, run_cli_process
) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() != 0:
        pytest.skip("needs root to hand the repository to another user")
    repo = make_repo()
    subprocess.run(["chown", "-R", "12345:12345", str(repo)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    result = run_cli_process("capture", "--only", "code", cwd=repo, env=env)
    record = json.loads(result.out)["collectors"]["code"]
    assert record["status"] == "error", record
    assert "no commits" not in (record["reason"] or "")


def test_capture_leaves_the_git_index_untouched(make_repo, run_cli_process) -> None:  # type: ignore[no-untyped-def]
    """Reading must not rewrite .git/index (the job's own git commands could hit its lock)."""
    repo = make_repo()
    index = repo / ".git" / "index"
    os.utime(repo / "train.py")  # stat-dirty, same content: porcelain diff would refresh
    before = (index.stat().st_mtime_ns, index.read_bytes())
    result = run_cli_process("capture", "--only", "code", cwd=repo)
    assert json.loads(result.out)["code"]["dirty"] is False
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def test_a_zero_accumulation_declaration_is_not_a_global_batch_of_zero(tmp_path: Path) -> None:
    from envsnap.capturing.collectors.parallel import collect

    context = CaptureContext(
        env={},
        cwd=tmp_path,
        inputs={"parallel": {"micro_batch_size": 8, "dp_size": 2, "grad_accum_steps": 0}},
    )
    section = collect(context)
    assert section.global_batch is None
    assert "grad_accum_steps=0" in section.unknown["global_batch"]


def test_show_summarises_the_run_sections(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("show", str(FIXTURES / "manifests" / "full.json"))
    assert result.code == 0, result.err
    for fact in (
        "A100-SXM4-80GB (sm 8.0)",
        "cudnn 8.9.2.26",
        "micro_batch_size 8 x dp_size 8",
        "master seed 1234",
        "GPT2TokenizerFast",
    ):
        assert fact in result.out, fact
