"""A scheduler's credentials never reach an output: a pod's service-account token and SLURM's
credential variables are planted, captured, and searched for in the manifest, `show`, `diff`
(every format) and `export`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.run import build_document
from tests.helpers import REPO_ROOT
from tests.helpers.placement import (
    NGC_IMAGE_ENV,
    SECRET,
    SLURM_CREDENTIALS,
    SLURM_ENV,
    plant_container,
    plant_pod,
)


def _envsnap(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", *args],
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", ""), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def test_no_output_holds_a_planted_token_or_slurm_credential(tmp_path: Path) -> None:
    root = plant_container(tmp_path / "root")
    pod = plant_pod(root)
    files = []
    for index, release in enumerate(("24.10", "24.11")):
        env = {**NGC_IMAGE_ENV[release], **SLURM_ENV, **SLURM_CREDENTIALS, **pod}
        context = CaptureContext(env=env, cwd=tmp_path, files_root=root)
        document = build_document(
            names=["system", "env", "placement"], context=context, argv=["train.py"]
        )
        assert document["placement"]["kubernetes"]["namespace"]["value"] == "training"
        path = tmp_path / f"run{index}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        files.append(str(path))
    outputs = {f"manifest {path}": Path(path).read_text(encoding="utf-8") for path in files}
    outputs["show"] = _envsnap("show", files[0], cwd=tmp_path)
    for fmt in ("table", "markdown", "json"):
        outputs[f"diff {fmt}"] = _envsnap("diff", "--all", "-f", fmt, *files, cwd=tmp_path)
    outputs["export"] = _envsnap("export", "cyclonedx", files[0], cwd=tmp_path)
    assert "container image changed" in outputs["diff table"]
    leaked = [name for name, text in outputs.items() if SECRET in text]
    assert leaked == []


def test_a_cli_capture_under_slurm_and_kubernetes_keeps_no_credential(tmp_path: Path) -> None:
    env = {**SLURM_ENV, **SLURM_CREDENTIALS, "KUBERNETES_SERVICE_HOST": "10.0.0.1"}
    out = tmp_path / "capture.json"
    _envsnap("capture", "--only", "env,placement", "-o", str(out), cwd=REPO_ROOT, env=env)
    text = out.read_text(encoding="utf-8")
    assert json.loads(text)["placement"]["slurm"]["partition"] == "a100"
    assert SECRET not in text
