"""`inspect_checkpoint`: what a checkpoint holds for an exact resume, and what is missing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from envsnap.diff.report import CATEGORY_WEIGHT, SEVERITY_RANK, Finding, Target, numbered
from envsnap.errors import EnvsnapError
from envsnap.files.reader import open_input, read_json
from envsnap.manifest.sections.base import Model
from envsnap.training.checkpoint import dcp, layout
from envsnap.training.checkpoint.confine import member
from envsnap.training.checkpoint.items import ItemStatus, audit_items
from envsnap.training.checkpoint.safeload import load_torch_safely, read_safetensors
from envsnap.training.checkpoint.scaling import loss_scaling

Kind = Literal["file", "safetensors", "training-state", "directory", "dcp"]
TORCH_SUFFIXES = frozenset({".pt", ".pth", ".bin", ".ckpt", ".tar"})
MAX_DIRECTORY_FILES = 64


class CheckpointReport(Model):
    path: str = Field(description="The inspected file or directory.")
    kind: Kind = Field(description="What kind of checkpoint it is.")
    target: Target = Field(description="Reproduction target the severities are for.")
    complete: bool = Field(
        description="Every item the run needs is present, and no integrity problem."
    )
    items: list[ItemStatus] = Field(description="Each resumption item and whether it is there.")
    findings: list[Finding] = Field(description="Missing items and problems, most severe first.")

    def reaches(self, threshold: str) -> bool:
        """True when a finding is at least as severe as `threshold`, or, for a rule id, when a
        finding of that rule is reported."""
        if threshold not in SEVERITY_RANK:
            return any(f.rule == threshold for f in self.findings)
        return any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK[threshold] for f in self.findings)


def _problem(rule: str, title: str, why: str, fix: str, path: str) -> Finding:
    return Finding(
        rank=0,
        rule=rule,
        severity="critical",
        category="semantics",
        path=path,
        title=title,
        why=why,
        fix=fix,
        refs=["seed document 001: distributed checkpoints must be complete and single-step"],
    )


def _load_file(path: Path) -> tuple[Kind, Any]:
    # The loaders open the file by name; refuse a pipe or device before they block on it.
    open_input(path, "a checkpoint file or directory").close()
    if path.suffix == ".safetensors":
        return "safetensors", read_safetensors(path)
    return "file", load_torch_safely(path)


MAX_JSON_BYTES = 16 * 1024 * 1024


def _load_directory(path: Path) -> dict[str, Any]:
    """A plain directory (e.g. a Hugging Face Trainer checkpoint): one key per file stem."""
    document: dict[str, Any] = {}
    # Only the directory's own regular files (a link may point to one inside it).
    names = sorted(p.name for p in path.iterdir())
    files = [f for f in (member(path, n) for n in names) if f is not None and f.is_file()]
    for file in files[:MAX_DIRECTORY_FILES]:
        if file.suffix == ".safetensors":
            document[file.stem] = read_safetensors(file)
        elif file.suffix in TORCH_SUFFIXES:
            document[file.stem] = load_torch_safely(file)
        elif file.suffix == ".json":
            try:
                content = read_json(file, "a JSON file", max_bytes=MAX_JSON_BYTES)
            except EnvsnapError:
                continue
            if isinstance(content, dict):
                # trainer_state.json-like files carry global_step / epoch at their top level.
                for key, value in content.items():
                    document.setdefault(key, value)
    if not document:
        raise EnvsnapError(f"{path}: no checkpoint files found in this directory")
    return document


def inspect_checkpoint(
    path: str | os.PathLike[str],
    *,
    target: Target = "bitwise",
    precision: Mapping[str, Any] | None = None,
) -> CheckpointReport:
    """Audit a checkpoint file or directory. Raises `EnvsnapError` if it cannot be read safely.

    `precision`: the `precision` section of the run's manifest (as a JSON object), which can
    tell whether the run used float16 loss scaling and so needs its scaler's state.
    """
    root = Path(path)
    label = os.fspath(path)
    if not root.exists():
        raise EnvsnapError(f"{label}: no such file or directory")
    problems: list[Finding] = []
    document: Any
    kind: Kind
    if root.is_dir() and layout.is_training_state_dir(root):
        kind = "training-state"
        _, problem = layout.verify(root)
        if problem:
            problems.append(
                _problem(
                    "ckpt.save.incomplete",
                    problem,
                    "An incomplete save is never a valid resume point: part of the state may be "
                    "missing or from another step.",
                    "Resume from the previous complete save; write the marker last.",
                    layout.MARKER,
                )
            )
        state_file = root / layout.STATE_FILE
        document = load_torch_safely(state_file) if state_file.exists() else {}
    elif root.is_dir() and dcp.is_dcp_dir(root):
        kind = "dcp"
        audit = dcp.audit_dcp(root)
        for rule, title, why in audit.problems:
            problems.append(
                _problem(
                    rule,
                    title,
                    why,
                    "Do not resume from this directory; use the last complete save.",
                    label,
                )
            )
        document = dcp.dcp_top_level(audit.fqns)
    elif root.is_dir():
        kind, document = "directory", _load_directory(root)
    else:
        kind, document = _load_file(root)
    items, findings = audit_items(document, target, loss_scaling(document, precision))
    # Integrity problems (incomplete save, bad shards) lead their severity: they make every
    # item finding moot.
    ranked = sorted(
        [(0, f) for f in problems] + [(1, f) for f in findings],
        key=lambda p: (
            -SEVERITY_RANK[p[1].severity],
            p[0],
            -CATEGORY_WEIGHT[p[1].category],
            p[1].rule,
        ),
    )
    ordered = numbered(f for _, f in ranked)
    return CheckpointReport(
        path=label,
        kind=kind,
        target=target,
        complete=not problems and all(item.present or not item.needed for item in items),
        items=items,
        findings=ordered,
    )
