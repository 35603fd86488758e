"""api.capture(...) inside a job: live objects in, a manifest out, never an exception."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import envsnap
from envsnap.capturing import api

torch = pytest.importorskip("torch")

INJOB = ["precision", "parallel", "data", "tokenizer", "templates"]


def test_capture_reads_live_objects_and_writes_a_loadable_manifest(
    clean_cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENVSNAP_CACHE_DIR", str(tmp_path / "cache"))
    (clean_cwd / "train.txt").write_text("hello\n")
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    out = clean_cwd / "run" / "manifest.json"
    manifest = api.capture(
        out,
        model=model,
        optimizer=optimizer,
        data={"train": "train.txt", "hub": {"versions": {"hf_revision": "abc"}}},
        templates={"system": "Be brief."},
        parallel={"grad_accum_steps": 2, "loss_normalization": "per_token_mean"},
        precision={"amp_dtype": "bfloat16"},
        seeds={"master": 1},
        label="api test",
        extra={"note": "x"},
        only=INJOB,
    )
    loaded = envsnap.load(str(out))
    assert loaded == manifest and loaded.digest == manifest.compute_digest()
    assert manifest.precision is not None and manifest.precision.params["float32"].tensors == 2
    assert manifest.precision.optimizer is not None
    assert manifest.precision.optimizer.param_groups["0"]["momentum"] == 0.9
    assert manifest.precision.amp_dtype == "bfloat16"
    assert manifest.parallel is not None
    assert manifest.parallel.loss_normalization == "per_token_mean"
    assert manifest.data is not None
    assert manifest.data.items["train"].file_count == 1
    assert manifest.data.items["hub"].kind == "declared"
    assert manifest.templates is not None and "system" in manifest.templates.templates
    assert manifest.collectors["tokenizer"].status == "skipped"
    assert manifest.run.label == "api test"


def test_wrong_objects_never_raise(clean_cwd: Path) -> None:
    manifest = api.capture(
        model="not a model",
        optimizer=object(),
        dataloader=3,
        data=42,
        tokenizer=[1, 2],
        templates=object(),
        parallel="nonsense",  # type: ignore[arg-type]
        only=INJOB,
    )
    assert manifest.precision is not None and "model" in manifest.precision.unknown
    assert manifest.parallel is not None and "dataloader" in manifest.parallel.unknown
    assert "declared.parallel" in manifest.parallel.unknown
    assert manifest.data is not None and manifest.data.items["data"].kind == "invalid"
    assert manifest.tokenizer is not None and manifest.tokenizer.error is not None
    assert manifest.templates is not None
    assert all(record.status != "error" for record in manifest.collectors.values())


def test_a_broken_config_is_recorded_not_raised(clean_cwd: Path) -> None:
    (clean_cwd / "envsnap.toml").write_text("[parallel]\ngrad_acum = 8\n")
    manifest = api.capture(only=INJOB)
    # The capture still runs, with the default configuration, and says what was wrong.
    assert "capture" not in manifest.collectors
    assert set(manifest.collectors) == set(INJOB)
    assert "grad_acum" in str(manifest.extra["config_error"])


def test_unwritable_path_is_logged_not_raised(
    clean_cwd: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (clean_cwd / "file").write_text("x")
    manifest = api.capture(clean_cwd / "file" / "m.json", only=["templates"])
    assert manifest.digest is not None
    assert "could not write" in caplog.text


def test_datasets_dataset_fingerprint(clean_cwd: Path) -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"text": ["a", "b", "c"], "label": [0, 1, 0]}, split="train")
    manifest = api.capture(data=[ds], only=["data"])
    assert manifest.data is not None
    item = manifest.data.items["dataset:train"]
    assert item.dataset is not None
    assert item.dataset.fingerprint == ds._fingerprint
    assert (item.dataset.num_rows, item.dataset.split) == (3, "train")
    assert set(item.dataset.features) == {"text", "label"}
    changed = ds.map(lambda row: {"label": row["label"] + 1})
    other = api.capture(data={"train": changed}, only=["data"])
    assert other.data is not None
    info = other.data.items["train"].dataset
    assert info is not None and info.fingerprint != ds._fingerprint


def test_manifest_is_json_with_the_in_job_sections(clean_cwd: Path) -> None:
    path = clean_cwd / "m.json"
    api.capture(str(path), parallel={"micro_batch_size": 2}, only=["parallel"])
    document = json.loads(path.read_text())
    assert document["parallel"]["micro_batch_size"] == 2
    assert not [p for p in os.listdir(clean_cwd) if p.endswith(".tmp")]


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
