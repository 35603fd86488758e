"""Weights & Biases: log the manifest as an artifact and its key facts as run config.

import envsnap.interop.integrations.wandb as envsnap_wandb
run = wandb.init(project="p", mode="offline")
envsnap_wandb.log_manifest(run=run)
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import wandb

from envsnap.manifest.facts import key_facts
from envsnap.manifest.model import Manifest, write_manifest

ARTIFACT_TYPE = "envsnap-manifest"


def log_manifest(
    manifest: Manifest | None = None, *, run: Any = None, label: str | None = None
) -> Manifest:
    """Log `manifest` (or a fresh capture) to `run` (default: the active run)."""
    run = run if run is not None else wandb.run
    if run is None:
        from envsnap.errors import EnvsnapError

        raise EnvsnapError("no active W&B run: call wandb.init() first or pass run=")
    if manifest is None:
        import envsnap

        manifest = envsnap.capture(label=label)
    run.config.update({"envsnap": key_facts(manifest)}, allow_val_change=True)
    artifact = wandb.Artifact(
        name=f"envsnap-{run.id}",
        type=ARTIFACT_TYPE,
        metadata={"digest": manifest.digest},
    )
    with tempfile.TemporaryDirectory(prefix="envsnap-wandb-") as tmp:
        path = Path(tmp) / "envsnap-manifest.json"
        write_manifest(manifest, path)
        # The default "mutable" policy copies the file into W&B's staging area right away,
        # so the temporary directory can go when this block ends.
        artifact.add_file(str(path), policy="mutable")
        run.log_artifact(artifact)
    return manifest
