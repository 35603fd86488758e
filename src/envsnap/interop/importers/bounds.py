"""How much an importer reads, and from where: the one table of caps, the run folder, safe YAML.

A record is read from its folder only: regular files inside it, no symbolic link below it
followed (even one pointing back inside; see `envsnap.files.reader.read_inside`), pipes and
devices refused, each file under the cap of its kind in `BOUNDS`. The record's own file (the
collect_env report, wandb-metadata.json, the run's meta.yaml) failing that fails the import with
one line. Any other file is skipped: it is named with the reason in the manifest's
`imported_from.facts["files_not_read"]`, and the fields it would have filled are unknown with
that reason. YAML anchors and aliases are refused outright (MLflow's writers emit none).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envsnap.errors import ManifestError
from envsnap.files.reader import MIB, entries_inside, read_inside


@dataclass(frozen=True)
class Bound:
    """The cap on one kind of file, and whether a failure to read it fails the whole import."""

    max_bytes: int
    required: bool


# Kind (as messages name it) -> cap. Real files are far smaller: a collect_env report or a run's
# meta.yaml is a few KiB, a tag a line, an environment's requirements a few hundred lines.
BOUNDS: dict[str, Bound] = {
    "a collect_env report": Bound(1 * MIB, required=True),
    "a W&B wandb-metadata.json": Bound(1 * MIB, required=True),
    "an MLflow run meta.yaml": Bound(1 * MIB, required=True),
    "an MLflow model meta.yaml": Bound(1 * MIB, required=False),
    "an MLflow tag": Bound(1 * MIB, required=False),
    "a requirements.txt": Bound(4 * MIB, required=False),
    "a conda.yaml": Bound(1 * MIB, required=False),
    "a python_env.yaml": Bound(1 * MIB, required=False),
    "a W&B diff.patch": Bound(16 * MIB, required=False),  # only its digest and size are kept
}
# One import reads at most this much in all, and lists at most this many folder entries.
MAX_IMPORT_BYTES = 32 * MIB
MAX_IMPORT_ENTRIES = 50_000
# A requirements list longer than this is not used: a real environment has a few thousand.
MAX_REQUIREMENTS = 20_000
# A tag value, a command line, a W&B metadata string or a collect_env line longer than this is
# cut, with a marker saying where.
MAX_VALUE_CHARS = 64 * 1024
# GPUs imported from one record (a node has at most a few dozen), and the longest name looked
# up in the GPU table (product names are under 64 characters; a lookup tries every entry).
MAX_GPU_DEVICES = 256
MAX_GPU_NAME_CHARS = 256
# Files named in `files_not_read`; beyond it, only their number.
MAX_NOTES = 100
NOT_READ = "files_not_read"
LINK_NOT_FOLLOWED = "a symbolic link; links inside the folder are not followed"


def truncated(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """`text`, or its first `limit` characters and a marker saying it was cut there."""
    if len(text) <= limit:
        return text
    return text[:limit] + truncation_marker(limit)


def truncation_marker(limit: int = MAX_VALUE_CHARS) -> str:
    """What ends a value cut at `limit` characters."""
    return f"…[truncated at {limit} characters]"


def truncated_strings(value: Any, limit: int = MAX_VALUE_CHARS) -> Any:
    """`value` (parsed JSON, nesting already bounded) with every string and key cut at `limit`:
    whatever field a value reaches later (redaction, the manifest), it is no longer than that."""
    if isinstance(value, str):
        return truncated(value, limit)
    if isinstance(value, list):
        return [truncated_strings(item, limit) for item in value]
    if isinstance(value, dict):
        return {truncated(k, limit): truncated_strings(v, limit) for k, v in value.items()}
    return value


def truncated_argv(argv: list[str], limit: int = MAX_VALUE_CHARS) -> list[str]:
    """argv cut to `limit` characters in all; the last entry kept carries the marker."""
    kept: list[str] = []
    room = limit
    for word in argv:
        if len(word) > room:
            kept.append(word[:room] + truncation_marker(limit))
            break
        kept.append(word)
        room -= len(word)
    return kept


@dataclass
class RunFolder:
    """The folder of one record: what was read from it (by name) and what was not, with why."""

    root: Path
    files: dict[str, bytes] = field(default_factory=dict)
    not_read: dict[str, str] = field(default_factory=dict)
    bytes_read: int = 0
    entries_listed: int = 0
    uncounted_notes: int = 0

    @classmethod
    def of(cls, path: Path) -> RunFolder:
        """The folder at `path`, resolved once: a link the user named is theirs to follow."""
        return cls(root=path.resolve())

    def require(
        self, relative: str, kind: str, *, key: str | None = None, keep: bool = True
    ) -> bytes:
        """The bytes of `relative` ("tags/x"), or ManifestError with one line. Kept for the
        digest under `key` (default `relative`) unless `keep` is false (a file only looked at,
        such as another run's model)."""
        data = read_inside(
            self.root, relative, kind, max_bytes=BOUNDS[kind].max_bytes, error=ManifestError
        )
        if self.bytes_read + len(data) > MAX_IMPORT_BYTES:
            limit = MAX_IMPORT_BYTES // MIB
            raise ManifestError(f"{self.root / relative}: over the {limit} MiB one import reads")
        self.bytes_read += len(data)
        if keep:
            self.files[key or relative] = data
        return data

    def read(
        self, relative: str, kind: str, *, key: str | None = None, keep: bool = True
    ) -> bytes | None:
        """`require`, except that a kind that is not required is skipped (None) and noted."""
        try:
            return self.require(relative, kind, key=key, keep=keep)
        except ManifestError as exc:
            if BOUNDS[kind].required:
                raise
            self.note(relative, str(exc))
            return None

    def entries(self, relative: str = "") -> dict[str, str]:
        """Name -> kind ("file", "dir", "link", "other") in the folder `relative`; {} when it
        cannot be listed (noted)."""
        room = MAX_IMPORT_ENTRIES - self.entries_listed
        try:
            found = entries_inside(self.root, relative, max_entries=room, error=ManifestError)
        except ManifestError as exc:
            self.note(relative, str(exc))
            return {}
        self.entries_listed += len(found)
        return found

    def reason(self, relative: str) -> str | None:
        """Why `relative` was not read, when it was skipped."""
        return self.not_read.get(relative)

    def note(self, relative: str, message: str) -> None:
        """Record that `relative` was not read, and why."""
        # Names relative to the folder: the manifest should not carry where the store lives.
        reason = message.replace(f"{self.root}{os.sep}", "").removeprefix(f"{relative}: ")
        if len(self.not_read) < MAX_NOTES:
            self.not_read[relative] = reason
        else:
            self.uncounted_notes += 1

    def refuses_long_list(self, relative: str, count: int) -> bool:
        """True, and noted, when the file `relative` lists more than MAX_REQUIREMENTS entries."""
        if count <= MAX_REQUIREMENTS:
            return False
        self.note(relative, f"more than {MAX_REQUIREMENTS} requirements; not used")
        return True

    def notes(self) -> dict[str, str]:
        """`not_read`, plus a count of those not named, for imported_from.facts."""
        notes = dict(self.not_read)
        if self.uncounted_notes:
            notes["…"] = f"{self.uncounted_notes} more files not read"
        return notes


@functools.cache
def _no_alias_loader() -> type[Any]:
    """A safe YAML loader that refuses anchors and aliases (a "billion laughs" document expands
    nine aliases per level into gigabytes). libyaml's parser when present, Python's composer."""
    import yaml
    from yaml.composer import Composer, ComposerError

    class NoAliases:
        def compose_node(self: Any, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise ComposerError(
                    None, None, "anchors and aliases are not accepted", event.start_mark
                )
            return Composer.compose_node(self, parent, index)

    if not getattr(yaml, "__with_libyaml__", False):
        return type("NoAliasLoader", (NoAliases, yaml.SafeLoader), {})

    from yaml._yaml import CParser
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class NoAliasCLoader(NoAliases, CParser, SafeConstructor, Resolver, Composer):
        # CSafeLoader composes in C, where no alias can be refused: compose in Python instead.
        get_single_node = Composer.get_single_node
        compose_document = Composer.compose_document

        def __init__(self, stream: Any) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            Composer.__init__(self)

    return NoAliasCLoader


def load_yaml(text: str, source: str) -> Any:
    """One YAML document, safe types only, no anchors or aliases; else ManifestError, one line."""
    import yaml

    try:
        return yaml.load(text, Loader=_no_alias_loader())  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        raise ManifestError(f"{source}: not valid YAML ({problem})") from None
    except RecursionError:
        raise ManifestError(f"{source}: YAML nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ManifestError(f"{source}: not valid YAML ({str(exc)[:80]})") from None
