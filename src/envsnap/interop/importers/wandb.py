"""Read a W&B run: `wandb-metadata.json`, plus the `requirements.txt` and `diff.patch` beside it.

`wandb-metadata.json` is W&B's `EnvironmentRecord` written as protobuf JSON (field names such
as `cpu_count`, `gpu_nvidia`, `cudaVersion` are fixed by the proto). Older W&B releases wrote a
similar dict from Python (`gpu_devices`, `hostname`, `cuda`); both are read. W&B records the
command line (`args`), the user's e-mail and user name: the command line is redacted, and the
e-mail and user name are not copied at all.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from envsnap.capturing.collectors.gpu import uuid_hash
from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.files.reader import MAX_INT_DIGITS, parse_json
from envsnap.interop.importers.base import Imported, Source, decode_text
from envsnap.interop.importers.bounds import NOT_READ, RunFolder, truncated_argv, truncated_strings
from envsnap.interop.importers.devices import complete, first_devices, from_name
from envsnap.interop.importers.platform import parse_platform
from envsnap.interop.importers.requirements import parse_requirements

FORMAT = "wandb"
METADATA = "wandb-metadata.json"
REQUIREMENTS = "requirements.txt"
DIFF = "diff.patch"
# Keys of wandb-metadata.json across releases; a JSON object with none of them is not W&B's.
KNOWN_KEYS = frozenset(
    {
        "os",
        "python",
        "startedAt",
        "program",
        "codePath",
        "codePathLocal",
        "git",
        "host",
        "hostname",
        "executable",
        "args",
        "root",
        "cpu_count",
        "cpu_count_logical",
        "gpu",
        "gpu_count",
        "gpu_nvidia",
        "gpu_devices",
        "cudaVersion",
        "cuda",
        "heartbeatAt",
        "state",
        "writerId",
        "memory",
        "disk",
        "slurm",
    }
)
# What a metadata object must hold to be taken for W&B's, whatever else it has.
MIN_KNOWN_KEYS = 2


def _metadata_in(folder: RunFolder) -> str:
    """Where the metadata sits in the run folder, found without following a link."""
    if folder.entries().get(METADATA) is not None:
        return METADATA
    if folder.entries().get("files") == "dir" and METADATA in folder.entries("files"):
        return f"files/{METADATA}"
    raise ManifestError(f"{folder.root}: no {METADATA} in this directory or its files/ folder")


def looks_like_metadata(document: object) -> bool:
    return (
        isinstance(document, dict)
        and "schema_version" not in document
        and len(KNOWN_KEYS.intersection(document)) >= MIN_KNOWN_KEYS
    )


def read_source(path: Path) -> tuple[Source, dict[str, Any], RunFolder]:
    """Read the metadata and its companions; refuse JSON that is not W&B's."""
    # A run directory is the folder; a metadata file named directly is read in its own folder.
    target = path.resolve()
    folder = RunFolder.of(target if target.is_dir() else target.parent)
    relative = _metadata_in(folder) if target.is_dir() else target.name
    what = "a W&B wandb-metadata.json"
    meta_path = str(folder.root / relative)
    data = folder.require(relative, what, key=METADATA)
    decode_text(data, meta_path, what)  # empty and binary input: the importers' message
    document = parse_json(data, meta_path, what, error=ManifestError)
    if not looks_like_metadata(document):
        raise ManifestError(
            f"{meta_path}: not a W&B wandb-metadata.json (none of its fields such as "
            "'python', 'os', 'startedAt', 'git' are present)"
        )
    document = truncated_strings(document)
    beside = relative.rpartition("/")[0]
    listed = folder.entries(beside)
    for companion, kind in ((REQUIREMENTS, "a requirements.txt"), (DIFF, "a W&B diff.patch")):
        if companion in listed:
            name = f"{beside}/{companion}" if beside else companion
            read = folder.read(name, kind, key=companion)
            if companion == REQUIREMENTS and read is not None:
                folder.refuses_long_list(name, read.count(b"\n"))
    return Source(path=path, files=folder.files), document, folder


def _time(value: object) -> datetime | None:
    """RFC 3339 with up to nanoseconds (protobuf JSON) -> aware datetime."""
    if not isinstance(value, str):
        return None
    match = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$", value)
    if not match:
        return None
    fraction = (match[2] or "")[:7]
    zone = "+00:00" if match[3] in (None, "Z") else match[3]
    try:
        return datetime.fromisoformat(f"{match[1]}{fraction}{zone}").astimezone(timezone.utc)
    except ValueError:
        return None


def _int(value: object) -> int | None:
    """protobuf JSON writes 64-bit integers as strings."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) <= MAX_INT_DIGITS:
        return int(value)
    return None


class _Mapper:
    def __init__(
        self, meta: dict[str, Any], source: Source, folder: RunFolder, redactor: Redactor
    ) -> None:
        self.meta = meta
        self.source = source
        self.folder = folder
        self.redactor = redactor
        self.out = Imported(format=FORMAT)

    def _not_read(self, companion: str) -> str | None:
        """Why the companion file beside the metadata was not read, when it was skipped."""
        for name, reason in self.folder.not_read.items():
            if name.rsplit("/", 1)[-1] == companion:
                return f"{name} not read: {reason}"
        return None

    def run(self) -> Imported:
        meta = self.meta
        self.out.started_at = _time(meta.get("startedAt"))
        program = meta.get("program")
        args = meta.get("args")
        argv = ([str(program)] if program else []) + [
            str(arg) for arg in (args if isinstance(args, list) else [])
        ]
        self.out.argv = truncated_argv(self.redactor.redact_argv(argv))
        self.out.cwd = str(meta["root"]) if isinstance(meta.get("root"), str) else None
        self.python()
        self.system()
        self.gpu()
        self.code()
        self.packages()
        for key in ("docker", "colab", "codePath", "cuda", "gpu_amd", "apple", "tpu", "trainium"):
            value = meta.get(key)
            if value in (None, "", [], {}):
                continue
            if key == "docker" and isinstance(value, str):
                # An image reference may carry registry credentials: user:password@registry/...
                self.out.facts["wandb_docker"] = self.redactor.redact_url(value)
            else:
                self.out.facts[f"wandb_{key}"] = json.loads(
                    self.redactor.redact_text(json.dumps(value))
                )
        if isinstance(meta.get("slurm"), dict):
            self.out.facts["wandb_slurm"] = {
                str(k): self.redactor.redact_value(str(k), str(v)) for k, v in meta["slurm"].items()
            }
        notes = self.folder.notes()
        if notes:
            self.out.facts[NOT_READ] = notes
        return self.out

    def python(self) -> None:
        raw = self.meta.get("python")
        if not isinstance(raw, str) or not raw:
            return
        implementation, _, version = raw.rpartition(" ")
        self.out.put("python", "version", version)
        if implementation:
            self.out.put("python", "implementation", implementation)
        else:
            self.out.put_unknown("python", "implementation")
        executable = self.meta.get("executable")
        if isinstance(executable, str):
            self.out.put("python", "executable", executable)

    def system(self) -> None:
        platform = self.meta.get("os")
        host = self.meta.get("host") or self.meta.get("hostname")
        if not isinstance(platform, str) and not isinstance(host, str):
            return
        stated = parse_platform(platform) if isinstance(platform, str) else {}
        for name in ("os", "kernel", "libc"):
            if stated.get(name):
                self.out.put("system", name, stated[name])
            else:
                self.out.put_unknown("system", name)
        self.out.put_unknown("system", "os_release")
        if isinstance(host, str):
            self.out.put("system", "hostname", host)
        memory = self.meta.get("memory")
        total = _int(memory.get("total")) if isinstance(memory, dict) else None
        self.out.put("system", "memory_total_bytes", total)
        if total is None:
            self.out.note_unknown("system", "memory_total_bytes")
        cpu_info: dict[str, Any] = (
            self.meta["cpu"] if isinstance(self.meta.get("cpu"), dict) else {}
        )
        cpu: dict[str, Any] = {
            "vendor": None,
            "model": cpu_info.get("model") if isinstance(cpu_info.get("model"), str) else None,
            "architecture": stated.get("machine"),
            "isa_flags": [],
            "logical_cores": _int(self.meta.get("cpu_count_logical"))
            or _int(cpu_info.get("countLogical")),
            "physical_cores": _int(self.meta.get("cpu_count")) or _int(cpu_info.get("count")),
            "usable_cores": None,
        }
        for name, value in cpu.items():
            if value is None:
                self.out.note_unknown("system", f"cpu.{name}")
        self.out.note_unknown("system", "cpu.isa_flags")
        self.out.put("system", "cpu", cpu)
        self.out.put_unknown_container()

    def gpu(self) -> None:
        listed = self.meta.get("gpu_nvidia") or self.meta.get("gpu_devices")
        if not isinstance(listed, list) or not listed:
            return
        listed_devices = [item for item in listed if isinstance(item, dict)]
        entries = first_devices(self.out, {str(i): item for i, item in enumerate(listed_devices)})
        devices = {key: self.device(key, entry) for key, entry in entries.items()}
        self.out.put("gpu", "devices", devices)
        count = _int(self.meta.get("gpu_count"))
        self.out.put("gpu", "device_count", count if count is not None else len(listed_devices))
        cuda = self.meta.get("cudaVersion")
        if isinstance(cuda, str) and cuda:
            self.out.put("gpu", "cuda_driver_version", cuda)  # NVML's driver CUDA version
        else:
            self.out.put_unknown("gpu", "cuda_driver_version")
        for name in ("driver_version", "nvml_version", "cuda_visible_devices", "cuda_device_order"):
            self.out.put_unknown("gpu", name)
        self.out.note_unknown("gpu", "visible")
        self.out.note_unknown("gpu", "links")

    def device(self, key: str, entry: dict[str, Any]) -> dict[str, Any]:
        name = entry.get("name") if isinstance(entry.get("name"), str) else None
        uuid = entry.get("uuid")
        device: dict[str, Any] = {"index": int(key), "name": name, **from_name(name)}
        if device["arch"] is None and isinstance(entry.get("architecture"), str):
            # W&B's own NVML architecture name, used only when the GPU table has no entry.
            device["arch"] = entry["architecture"] or None
        if isinstance(uuid, str) and uuid:
            device["uuid_hash"] = uuid_hash(uuid)
        if isinstance(entry.get("pciBusId"), str):
            device["pci_bus_id"] = entry["pciBusId"]
        device["memory_total_bytes"] = _int(entry.get("memoryTotal") or entry.get("memory_total"))
        return complete(self.out, key, device)

    def code(self) -> None:
        git = self.meta.get("git")
        if not isinstance(git, dict) or not git.get("commit"):
            return
        self.out.put("code", "commit", str(git["commit"]))
        if isinstance(git.get("remote"), str):
            self.out.facts["wandb_git_remote"] = self.redactor.redact_url(git["remote"])
        for name in ("repo_root", "branch", "detached", "untracked_count", "untracked_digest"):
            self.out.put_unknown("code", name)
        self.out.note_unknown("code", "remotes", "W&B records a remote URL but not its name")
        self.out.note_unknown("code", "submodules")
        patch = self.source.files.get(DIFF)
        # W&B writes diff.patch only when `git diff HEAD` is non-empty; its absence may also mean
        # code saving was off, so a missing patch does not prove a clean tree.
        if patch is not None and patch.strip():
            self.out.put("code", "dirty", True)
            self.out.facts["wandb_diff_patch"] = {
                "sha256": hashlib.sha256(patch).hexdigest(),
                "bytes": len(patch),
            }
        else:
            reason = self._not_read(DIFF) or f"no non-empty {DIFF} beside the W&B metadata"
            self.out.put_unknown("code", "dirty", reason)
        reason = "W&B's diff.patch is `git diff HEAD` without --binary; its digest is in imported_from.facts"
        self.out.put_unknown("code", "diff_sha256", reason)
        self.out.put_unknown("code", "diff_bytes", reason)

    def packages(self) -> None:
        unread = self._not_read(REQUIREMENTS)
        if unread:  # none listed, and why: the list cannot be null
            self.out.put("packages", "installed", {})
            self.out.note_unknown("packages", "installed", unread)
            self.out.put_unknown("packages", "project_root")
            return
        data = self.source.files.get(REQUIREMENTS)
        if data is None:
            return
        text = data.decode("utf-8", errors="replace")
        installed, unpinned = parse_requirements(text, self.redactor)
        for entry in installed.values():
            entry.setdefault("version", None)
            entry.setdefault("installer", None)
            entry.setdefault("source", None)
        self.out.put("packages", "installed", installed)
        if unpinned:
            self.out.note_unknown(
                "packages", "installed", f"listed without a pinned version: {', '.join(unpinned)}"
            )
        self.out.put_unknown("packages", "project_root")


def read_wandb(path: Path, redactor: Redactor | None = None) -> tuple[Source, Imported]:
    """Read a W&B run (metadata file or run directory) into imported facts."""
    source, document, folder = read_source(path)
    return source, _Mapper(document, source, folder, redactor or Redactor()).run()
