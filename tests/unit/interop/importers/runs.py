"""Real runs made here by the tools themselves: an MLflow file-store run, a W&B offline run.

Shared by the importer tests and the security tests, which plant attacks in copies of them.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import git

SECRET = "sekrit-value-123"

# The environment files are written by MLflow's own writers, the ones `log_model` uses;
# `log_model` itself is not called because the pyfunc flavor needs pandas.
MLFLOW_TRAIN = """
import sys, tempfile, pathlib
import mlflow
from mlflow.utils.environment import _mlflow_conda_env, _PythonEnv

mlflow.set_tracking_uri(pathlib.Path(sys.argv[1]).as_uri())
with mlflow.start_run() as run:
    mlflow.log_param("lr", 0.1)
    with tempfile.TemporaryDirectory() as tmp:
        model = pathlib.Path(tmp)
        _mlflow_conda_env(model / "conda.yaml", additional_pip_deps=["torch==2.13.0", "numpy==2.4.6"])
        _PythonEnv(python="3.11.7", build_dependencies=["pip==24.0"],
                   dependencies=["-r requirements.txt"]).to_yaml(model / "python_env.yaml")
        (model / "requirements.txt").write_text("mlflow==3.17.2\\ntorch==2.13.0\\nnumpy==2.4.6\\n")
        mlflow.log_artifacts(str(model), artifact_path="model")
    if hasattr(mlflow, "initialize_logged_model"):  # MLflow 3: models/<id>/meta.yaml
        mlflow.initialize_logged_model(name="model", source_run_id=run.info.run_id)
print(run.info.experiment_id, run.info.run_id)
"""


WANDB_TRAIN = """
import wandb
run = wandb.init(project="envsnap-test")
run.log({"loss": 1.0})
run.finish()
"""


def _log_records(path: Path) -> Iterator[bytes]:
    """Records of a W&B transaction log (.wandb): a 7-byte header, then LevelDB-log blocks."""
    data = path.read_bytes()
    assert data[:4] == b":W&B", "not a W&B transaction log"
    block, position, pending = 32768, 7, b""
    while position + 7 <= len(data):
        if block - position % block < 7:
            position += block - position % block  # block trailer padding
            continue
        _crc, length, kind = struct.unpack("<IHB", data[position : position + 7])
        if length == 0 and kind == 0:
            break
        chunk = data[position + 7 : position + 7 + length]
        position += 7 + length
        if kind == 1:  # full record
            yield chunk
        elif kind == 2:  # first fragment
            pending = chunk
        elif kind == 3:  # middle fragment
            pending += chunk
        elif kind == 4:  # last fragment
            yield pending + chunk
            pending = b""


def write_metadata_from_log(run_dir: Path) -> Path:
    """Write files/wandb-metadata.json from the run's environment records, as W&B syncs it.

    Offline W&B keeps the metadata in the transaction log; wandb-core merges the environment
    records of a writer and writes them as protobuf JSON. This does the same with W&B's own
    protobuf classes.
    """
    from google.protobuf import json_format
    from wandb.proto import wandb_internal_pb2 as pb

    merged = pb.EnvironmentRecord()
    (log,) = run_dir.glob("run-*.wandb")
    for raw in _log_records(log):
        record = pb.Record()
        record.ParseFromString(raw)
        if record.WhichOneof("record_type") == "environment":
            merged.MergeFrom(record.environment)
    assert merged.ByteSize(), "the W&B run recorded no environment"
    merged.ClearField("_info")
    target = run_dir / "files" / "wandb-metadata.json"
    target.write_text(json_format.MessageToJson(merged, indent=2), encoding="utf-8")
    return target


def make_mlflow_run(base: Path) -> tuple[Path, Path]:
    """A real MLflow run of a script in a git repository, in a file store: (run dir, repo).

    Needs mlflow (mlflow-skinny); callers skip without it.
    """
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "train.py").write_text(MLFLOW_TRAIN, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "train")
    store = base / "mlruns"
    # MLflow 3 keeps the file store only on request; older releases use it by default.
    env = {**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true", "GIT_PYTHON_REFRESH": "quiet"}
    done = subprocess.run(
        [sys.executable, "train.py", str(store)],
        cwd=repo,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    )
    experiment, run_id = done.stdout.split()[-2:]
    return store / experiment / run_id, repo


def make_wandb_run(base: Path) -> tuple[Path, Path]:
    """A real offline W&B run of a script in a dirty git repository: (run dir, repo).

    Needs wandb and protobuf; callers skip without them.
    """
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "train.py").write_text(WANDB_TRAIN, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "train")
    (repo / "train.py").write_text(WANDB_TRAIN + "# tuned\n", encoding="utf-8")  # dirty tree
    env = {
        **os.environ,
        "WANDB_MODE": "offline",
        "WANDB_SILENT": "true",
        "WANDB_DIR": str(base),
        "WANDB_CONFIG_DIR": str(base / "config"),
        "WANDB_CACHE_DIR": str(base / "cache"),
        "WANDB_DATA_DIR": str(base / "data"),
        "HF_TOKEN": "hf_" + "a" * 30,
    }
    subprocess.run(
        [sys.executable, "train.py", "--token", SECRET, "--lr", "0.1"],
        cwd=repo,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
    )
    (run_dir,) = (base / "wandb").glob("offline-run-*")
    write_metadata_from_log(run_dir)
    # W&B saves `git diff HEAD` as diff.patch when the tree is dirty (online runs only).
    patch = subprocess.run(
        ["git", "diff", "HEAD", "--submodule=diff"], cwd=repo, capture_output=True, check=True
    ).stdout
    (run_dir / "files" / "diff.patch").write_bytes(patch)
    return run_dir, repo
