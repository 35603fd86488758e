"""The advisory database: one OSV JSON file per advisory, shipped in `envsnap/audit/db`.

Files follow the OSV schema (https://ossf.github.io/osv-schema/). OSV's own fields carry the
affected packages and version ranges; `database_specific.envsnap` carries what OSV cannot
express: the condition on the manifest (see `conditions.py`), the severity per reproduction
target, the workaround and the kind of cause. Loading validates each file with pydantic and
compiles its condition, so a malformed advisory fails at load with its file named. A `--db DIR`
may come from anywhere: its files are read through the project's bounded reader (regular files
only, size-capped each and in all, strict JSON of bounded depth), never through a link that
leaves the directory, and its patterns are held to the grammar of `pattern.py`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from envsnap.audit import deadline
from envsnap.audit.conditions import Condition, ConditionError, compile_condition
from envsnap.audit.ranges import Range, compile_ranges
from envsnap.diff.report import Category, Severity, Target
from envsnap.errors import EnvsnapError
from envsnap.files.reader import MIB, entries_inside, parse_json, read_inside

if TYPE_CHECKING:
    from envsnap.audit.scan import Plan

ID_PATTERN = r"^ENVSNAP-\d{4}-\d{4}$"


class _Open(BaseModel):
    """OSV objects may carry fields envsnap does not use; they are kept, not rejected."""

    model_config = ConfigDict(extra="allow", frozen=True)


class OsvPackage(_Open):
    ecosystem: str
    name: str


class OsvEvent(_Open):
    introduced: str | None = None
    fixed: str | None = None
    last_affected: str | None = None


class OsvRange(_Open):
    type: Literal["ECOSYSTEM", "SEMVER", "GIT"]
    events: list[OsvEvent] = Field(min_length=1)


class OsvAffected(_Open):
    package: OsvPackage
    ranges: list[OsvRange] = Field(default_factory=list)


class OsvReference(_Open):
    type: str
    url: str


class EnvsnapSpecific(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    when: dict[str, Any] | None = None
    severity: dict[Target, Severity]
    workaround: str
    category: Category
    confidence: Literal["confirmed", "reported"] = "confirmed"


class OsvAdvisory(_Open):
    schema_version: str
    id: str = Field(pattern=ID_PATTERN)
    modified: str
    published: str
    aliases: list[str] = Field(default_factory=list)
    summary: str = Field(min_length=1, max_length=200)
    details: str = Field(min_length=1)
    affected: list[OsvAffected] = Field(min_length=1)
    references: list[OsvReference] = Field(min_length=1)
    database_specific: dict[str, Any]


@dataclass(frozen=True)
class Advisory:
    """An advisory ready to evaluate: the OSV record plus its compiled parts."""

    record: OsvAdvisory
    envsnap: EnvsnapSpecific
    packages: tuple[tuple[str, tuple[Range, ...]], ...]
    when: Condition | None

    @property
    def id(self) -> str:
        return self.record.id

    def fixed_versions(self) -> list[str]:
        return [
            f"{affected.package.name} {event.fixed}"
            for affected in self.record.affected
            for rng in affected.ranges
            for event in rng.events
            if event.fixed
        ]


def parse_advisory(document: Any, source: str) -> Advisory:
    """Validate and compile one advisory; `EnvsnapError` with one line on failure."""
    try:
        record = OsvAdvisory.model_validate(document)
        envsnap = EnvsnapSpecific.model_validate(record.database_specific.get("envsnap"))
        when = compile_condition(envsnap.when) if envsnap.when is not None else None
        packages = tuple(
            (affected.package.name, compile_ranges(affected.ranges)) for affected in record.affected
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise EnvsnapError(f"{source}: not a valid advisory: {where}: {first['msg']}") from None
    except (ConditionError, ValueError) as exc:
        raise EnvsnapError(f"{source}: not a valid advisory: {exc}") from None
    return Advisory(record, envsnap, packages, when)


@dataclass(frozen=True)
class Database:
    advisories: tuple[Advisory, ...]
    source: str
    # Compiled scan plans per ignore list (see scan.py), built on first use.
    _plans: dict[frozenset[str], Plan] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def plan(self, ignore: Iterable[str] = ()) -> Plan:
        """This database compiled for scanning, without the ignored ids (or aliases)."""
        from envsnap.audit.scan import Plan

        key = frozenset(ignore)
        if key not in self._plans:
            self._plans[key] = Plan(self, key)
        return self._plans[key]


# Bounds on a `--db DIR`: the bundled advisories are 2-3 KB each and number 45, so these leave
# room for a database a hundred times larger while keeping a hostile directory cheap to refuse.
MAX_ADVISORY_BYTES = 256 * 1024
MAX_ADVISORY_FILES = 4096
MAX_DATABASE_BYTES = 16 * 1024 * 1024
_WHAT = "an advisory file (OSV JSON)"


def _advisory_files(root: str) -> list[str]:
    """The `*.json` of the folder `root` (resolved), each as a path inside it, by name.

    A link is read only when it resolves inside the folder, and then as the real file it names:
    a link out of it could make a database of any file the user can read (/dev/zero, a secret,
    a pipe). Everything else is read without following a link (`read_inside`).
    """
    files: list[str] = []
    for name, kind in entries_inside(root).items():
        if not name.endswith(".json"):
            continue
        if len(files) == MAX_ADVISORY_FILES:
            raise EnvsnapError(f"{root}: more than {MAX_ADVISORY_FILES} advisory files; not read")
        if kind == "link":
            target = os.path.realpath(os.path.join(root, name))
            if os.path.commonpath((target, root)) != root or target == root:
                raise EnvsnapError(
                    f"{os.path.join(root, name)}: a link out of the advisory directory; not read"
                )
            files.append(os.path.relpath(target, root))
        else:
            files.append(name)
        deadline.check()
    return files


def load_directory(directory: str | os.PathLike[str]) -> Database:
    """Every `*.json` advisory in a directory (`--db DIR`), read through the bounded reader:
    regular files only, each and all of them size-capped, JSON parsed strictly."""
    if not os.path.isdir(directory):
        raise EnvsnapError(f"{directory}: not a directory of advisories")
    root = os.path.realpath(directory)
    advisories, total = [], 0
    for relative in _advisory_files(root):
        data = read_inside(root, relative, _WHAT, max_bytes=MAX_ADVISORY_BYTES)
        total += len(data)
        if total > MAX_DATABASE_BYTES:
            raise EnvsnapError(
                f"{directory}: advisories of more than {MAX_DATABASE_BYTES // MIB} MiB in all; "
                "not read"
            )
        source = os.path.join(root, relative)
        advisories.append(parse_advisory(parse_json(data, source, _WHAT), source))
        deadline.check()
    if not advisories:
        raise EnvsnapError(f"{directory}: holds no advisory (*.json)")
    return Database(tuple(advisories), str(directory))


@cache
def bundled() -> Database:
    """The database shipped with this envsnap (read once per process)."""
    root = resources.files("envsnap.audit") / "db"
    # Shipped with the code and checked by the suite: the plain parser is enough, and every
    # `envsnap diff` loads this set.
    advisories = [
        parse_advisory(json.loads(entry.read_bytes()), f"envsnap/audit/db/{entry.name}")
        for entry in sorted(root.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    ]
    return Database(tuple(advisories), "bundled")


def load(directory: str | os.PathLike[str] | None = None) -> Database:
    return bundled() if directory is None else load_directory(directory)
