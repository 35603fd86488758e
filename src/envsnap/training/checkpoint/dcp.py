"""Audit a torch.distributed.checkpoint (DCP) directory without trusting its pickles.

DCP writes one or more `__<rank>_<n>.distcp` shard files, then the coordinator writes `.metadata`
(a pickle of dataclasses) that maps every item to a byte range of a shard. We check that the
metadata is there and complete, that every shard it names exists and is long enough, that no
stray shard lies beside them, and that every step counter stored in more than one shard (for
example Adam's per-parameter `step`) has one value: a shard copied from another save shows up as
a second value.
"""

from __future__ import annotations

import io
import pickle
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.files.reader import open_input, read_input
from envsnap.training.checkpoint.confine import MAX_PICKLE_BYTES, byte_range, member
from envsnap.training.checkpoint.safeload import load_torch_safely

METADATA = ".metadata"
SHARD_SUFFIX = ".distcp"
STEP_NAMES = frozenset({"step", "global_step", "update", "updates", "iteration", "epoch"})
# The classes a DCP `.metadata` pickle is made of. Building them runs no user code: they are
# dataclasses (plus torch.Size, dtypes and a layout lookup by name).
_METADATA_CLASSES = {
    "torch.distributed.checkpoint.metadata": {
        "Metadata",
        "MetadataIndex",
        "StorageMeta",
        "TensorProperties",
        "TensorStorageMetadata",
        "BytesStorageMetadata",
        "ChunkStorageMetadata",
        "_MEM_FORMAT_ENCODING",
    },
    "torch.distributed.checkpoint.filesystem": {"_StorageInfo"},
    "torch.distributed.checkpoint.planner": {"LoadItemType", "WriteItemType"},
    "torch.serialization": {"_get_layout"},
    "pathlib": {"PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath", "Path"},
    "collections": {"OrderedDict"},
}


class _MetadataUnpickler(pickle.Unpickler):
    """Unpickler that builds only DCP metadata classes and torch dtypes/sizes."""

    def find_class(self, module: str, name: str) -> Any:
        import torch

        if module == "torch" and (
            name == "Size" or isinstance(getattr(torch, name, None), torch.dtype)
        ):
            return super().find_class(module, name)
        if name in _METADATA_CLASSES.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of DCP metadata")


@dataclass
class DcpAudit:
    """What the audit found; `problems` are (rule, title, why) triples, all fatal."""

    fqns: list[str] = field(default_factory=list)
    shards: list[str] = field(default_factory=list)
    steps: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    problems: list[tuple[str, str, str]] = field(default_factory=list)


def is_dcp_dir(path: Path) -> bool:
    return path.is_dir() and (
        (path / METADATA).exists() or any(p.suffix == SHARD_SUFFIX for p in path.iterdir())
    )


def _read_metadata(path: Path) -> Any:
    data = read_input(path, "DCP metadata", max_bytes=MAX_PICKLE_BYTES)
    try:
        return _MetadataUnpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError as exc:
        raise EnvsnapError(f"{path}: refused: not plain DCP metadata ({exc})") from None
    except Exception as exc:
        raise EnvsnapError(f"{path}: unreadable DCP metadata ({type(exc).__name__})") from None


def audit_dcp(directory: Path) -> DcpAudit:
    """Check a DCP directory; never raises for a damaged checkpoint, only lists problems."""
    audit = DcpAudit()
    on_disk = sorted(p.name for p in directory.iterdir() if p.suffix == SHARD_SUFFIX)
    audit.shards = on_disk
    if not (directory / METADATA).exists():
        audit.problems.append(
            (
                "dcp.metadata.missing",
                "no .metadata file: the save never completed",
                "DCP writes .metadata last, after every rank finished its shards; without it "
                "the shards may be partial or from different saves.",
            )
        )
        return audit
    metadata = _read_metadata(directory / METADATA)
    storage = getattr(metadata, "storage_data", None) or {}
    items = getattr(metadata, "state_dict_metadata", None) or {}
    audit.fqns = sorted(items)
    _check_coverage(items, storage, audit)
    referenced = _check_shards(directory, storage, on_disk, audit)
    _check_steps(directory, storage, referenced, audit)
    return audit


def _check_coverage(items: dict[str, Any], storage: dict[Any, Any], audit: DcpAudit) -> None:
    stored = {(index.fqn, tuple(index.offset or ())) for index in storage}
    lacking = []
    for fqn, meta in items.items():
        chunks = getattr(meta, "chunks", None)
        keys = [(fqn, tuple(c.offsets)) for c in chunks] if chunks else [(fqn, ())]
        if any(key not in stored for key in keys):
            lacking.append(fqn)
    if lacking:
        audit.problems.append(
            (
                "dcp.metadata.incomplete",
                f"metadata lists {len(lacking)} items with no stored data ({', '.join(lacking[:3])})",
                "Part of the state was never written, so it cannot be restored.",
            )
        )


def _check_shards(
    directory: Path, storage: dict[Any, Any], on_disk: list[str], audit: DcpAudit
) -> set[str]:
    needed: dict[str, int] = defaultdict(int)
    refused: set[str] = set()
    for info in storage.values():
        name = getattr(info, "relative_path", None)
        span = byte_range(getattr(info, "offset", None), getattr(info, "length", None))
        if not isinstance(name, str) or member(directory, name) is None or span is None:
            refused.add(repr(name)[:80] if span is not None else f"{name!r:.80} (bad byte range)")
            continue
        needed[name] = max(needed[name], span[0] + span[1])
    if refused:
        audit.problems.append(
            (
                "dcp.shard.outside",
                f"metadata names shards that are not files of this checkpoint: "
                f"{', '.join(sorted(refused)[:3])}",
                "A shard must be a regular file inside the checkpoint directory, read at a "
                "non-negative byte range; these were not read.",
            )
        )
    for name, end in sorted(needed.items()):
        shard = directory / name
        if not shard.exists():
            audit.problems.append(
                (
                    "dcp.shard.missing",
                    f"shard {name} is missing",
                    "The metadata points to data in this file; the state stored there is lost.",
                )
            )
        elif shard.stat().st_size < end:
            audit.problems.append(
                (
                    "dcp.shard.partial",
                    f"shard {name} is truncated ({shard.stat().st_size} of {end} bytes)",
                    "A half-written shard: the save was interrupted or the copy is incomplete.",
                )
            )
    stray = sorted(set(on_disk) - set(needed))
    if stray:
        audit.problems.append(
            (
                "dcp.shard.stray",
                f"shard files not named by the metadata: {', '.join(stray)}",
                "They come from another save (another step or world size) and are ignored by "
                "DCP; the directory mixes saves.",
            )
        )
    return {name for name in needed if (directory / name).is_file()}


def _check_steps(
    directory: Path, storage: dict[Any, Any], readable: set[str], audit: DcpAudit
) -> None:
    values: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for index, info in storage.items():
        leaf = index.fqn.rsplit(".", 1)[-1]
        span = byte_range(info.offset, info.length)
        if leaf not in STEP_NAMES or info.relative_path not in readable or span is None:
            continue
        if span[1] > 1 << 16:
            continue
        try:
            with open_input(directory / info.relative_path, "a DCP shard") as handle:
                handle.seek(span[0])
                raw = handle.read(span[1])
            value = load_torch_safely(raw, name=f"{info.relative_path}:{index.fqn}")
            number = float(value.item() if hasattr(value, "item") else value)
        except (EnvsnapError, TypeError, ValueError, OSError):
            continue
        if number.is_integer():
            values[leaf][info.relative_path].add(int(number))
    for leaf, per_shard in values.items():
        audit.steps[leaf] = {shard: sorted(v) for shard, v in sorted(per_shard.items())}
        distinct = set().union(*per_shard.values())
        if len(distinct) > 1:
            shown = "; ".join(f"{shard}: {sorted(v)}" for shard, v in sorted(per_shard.items()))
            audit.problems.append(
                (
                    "dcp.step.mixed",
                    f"shards hold different '{leaf}' values ({shown})",
                    "Every shard must come from the same logical step; a mixed-step checkpoint "
                    "restores parts of the model from different points of training.",
                )
            )


def dcp_top_level(fqns: list[str]) -> dict[str, Any]:
    """A stand-in document keyed like the saved state dict's top level, for the item audit."""
    from envsnap.training.checkpoint.items import Opaque

    counts: dict[str, int] = defaultdict(int)
    for fqn in fqns:
        counts[fqn.partition(".")[0]] += 1
    return {
        head: Opaque(f"{count} stored items (contents not inspected in DCP)")
        for head, count in counts.items()
    }
