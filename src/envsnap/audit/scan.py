"""The advisory database compiled for scanning many manifests: plain data in, plain data out.

A `Plan` is built once per database and ignore list. It indexes advisories by the packages
they name, so a manifest only evaluates the advisories of packages it has (an advisory whose
package is known to be absent is dismissed without a look), and it remembers every
(package, version) range verdict, since a fleet repeats a handful of versions. The manifest is
the parsed JSON dict; nothing is validated or copied, and nothing is built for an advisory that
does not apply. A hit is a tuple of strings, booleans and the facts' values: cheap to pickle
back from a worker, and turned into an `AuditFinding` only where one is shown.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from envsnap.audit import deadline
from envsnap.audit.conditions import Match, Memo, Truth
from envsnap.audit.database import Advisory, Database
from envsnap.audit.facts import Doc, Values, package_version
from envsnap.audit.ranges import affected

# Entries per cache of a plan: a fleet repeats a handful of versions, and one that does not
# (every manifest a new version) must not grow a worker's memory without bound.
CACHE_LIMIT = 65_536


class Hit(NamedTuple):
    """An advisory that applies (`affected`) or may apply to one manifest, and why."""

    id: str
    affected: bool
    versions: tuple[str | None, ...]  # per affected package of the advisory, in its order
    trace: tuple[Match, ...]  # every test of the condition, with the manifest's values


def _and(left: Truth, right: Truth) -> Truth:
    if left is False or right is False:
        return False
    return None if left is None or right is None else True


class Plan:
    """A database and an ignore list, compiled for `scan`."""

    def __init__(self, database: Database, ignore: frozenset[str] = frozenset()) -> None:
        self.advisories = tuple(
            a
            for a in database.advisories
            if a.id not in ignore and ignore.isdisjoint(a.record.aliases)
        )
        self.by_id = {advisory.id: advisory for advisory in database.advisories}
        self.packages = tuple(sorted({name for a in self.advisories for name, _ in a.packages}))
        self.by_package: dict[str, list[int]] = {name: [] for name in self.packages}
        self.unconditional: list[int] = []  # advisories that name no package
        for index, advisory in enumerate(self.advisories):
            for name, _ranges in advisory.packages:
                self.by_package[name].append(index)
            if not advisory.packages:
                self.unconditional.append(index)
        self._in_range: dict[tuple[int, int, str], bool] = {}
        self._candidates: dict[tuple[str, ...], list[int]] = {}

    def candidates(self, versions: dict[str, Values]) -> list[int]:
        """Advisories worth evaluating: those of a package that is present or unknown."""
        present = tuple(name for name, found in versions.items() if found != ())
        chosen = self._candidates.get(present)
        if chosen is None:
            picked = set(self.unconditional).union(*(self.by_package[n] for n in present))
            if len(self._candidates) >= CACHE_LIMIT:
                self._candidates.clear()
            chosen = self._candidates[present] = sorted(picked)
        return chosen

    def gate(self, index: int, versions: dict[str, Values]) -> Truth:
        """OSV's package test: any affected entry whose version lies in its ranges."""
        result: Truth = False
        for entry, (name, ranges) in enumerate(self.advisories[index].packages):
            found = versions[name]
            if found is None:
                result = None
            elif found:
                key = (index, entry, str(found[0]))
                verdict = self._in_range.get(key)
                if verdict is None:
                    if len(self._in_range) >= CACHE_LIMIT:
                        self._in_range.clear()
                    verdict = self._in_range[key] = affected(key[2], ranges)
                if verdict:
                    return True
        return result

    def status(self, index: int, doc: Doc, versions: dict[str, Values], memo: Memo) -> Truth:
        """True: applies; False: does not; None: the manifest cannot tell."""
        gate = self.gate(index, versions)
        when = self.advisories[index].when
        if gate is False or when is None:
            return gate
        return _and(gate, when.evaluate(doc, None, memo))


def versions_of(plan: Plan, doc: Doc) -> dict[str, Values]:
    """The version of every package the plan names, looked up once."""
    return {name: package_version(doc, name) for name in plan.packages}


def explain(
    advisory: Advisory, doc: Doc, versions: dict[str, Values], memo: Memo, status: bool
) -> Hit:
    """The hit of an advisory that applies (or may): its versions and its facts' values."""
    trace: list[Match] = []
    if advisory.when is not None:
        advisory.when.evaluate(doc, trace, memo)
    shown = tuple(
        str(found[0]) if (found := versions[name]) else None for name, _ in advisory.packages
    )
    return Hit(advisory.id, status, shown, tuple(trace))


def scan(plan: Plan, doc: dict[str, Any]) -> list[Hit]:
    """Every advisory of the plan that applies or may apply to one manifest document."""
    versions = versions_of(plan, doc)
    memo: Memo = {}
    hits = []
    for index in plan.candidates(versions):
        deadline.check()
        status = plan.status(index, doc, versions, memo)
        if status is not False:
            hits.append(explain(plan.advisories[index], doc, versions, memo, status is True))
    return hits
