"""The condition grammar of `database_specific.envsnap.when`, compiled once per database.

    condition := {"all": [condition, ...]} | {"any": [condition, ...]} | {"not": condition}
               | {"fact": FACT, OP: VALUE [, "quantifier": "any" | "every"] [, "missing": BOOL]}
    OP        := eq | ne | in | not_in | gt | gte | lt | lte | matches | set

Logic is three-valued (Kleene): a fact the manifest does not hold makes its test unknown
(None), `all` is false if any part is false, `any` is true if any part is true, and unknown
otherwise; `"missing": false` (or true) gives the answer to use instead when the manifest
has no such fact, for facts whose absence is itself informative. A fact with several values (one per GPU, say) passes when any value passes, or
every value with `"quantifier": "every"`. Comparisons are numeric for numbers and PEP 440
for version-like strings (so "10.0" > "9.0" and "2.5.0+cu121" >= "2.5"); a value that cannot
be compared fails the test rather than guessing. `matches` is a case-insensitive search with
the restricted, linear-time patterns of `pattern.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from packaging.version import InvalidVersion, Version

from envsnap.audit.facts import Doc, Resolver, Values, resolver
from envsnap.audit.pattern import PatternError, SafePattern

Truth = bool | None
Memo = dict[
    str, Values
]  # fact -> values, for one document: facts shared by advisories are read once
OPS = ("eq", "ne", "in", "not_in", "gt", "gte", "lt", "lte", "matches", "set")


class ConditionError(ValueError):
    """A condition that does not follow the grammar."""


@lru_cache(maxsize=4096)
def as_version(text: str) -> Version | None:
    try:
        version = Version(text)
    except InvalidVersion:
        return None
    return Version(version.public)  # a local build tag (+cu121) never decides a range


def _ordered(value: Any, bound: Any) -> tuple[Any, Any] | None:
    """Both sides in one comparable form, or None."""
    if isinstance(value, bool) or isinstance(bound, bool):
        return None
    if isinstance(value, (int, float)) and isinstance(bound, (int, float)):
        return value, bound
    if isinstance(value, (str, int, float)) and isinstance(bound, (str, int, float)):
        left, right = as_version(str(value)), as_version(str(bound))
        if left is not None and right is not None:
            return left, right
    return None


def _compare(op: str, expected: Any) -> Callable[[Any], bool]:
    if op == "eq":
        return lambda v: bool(v == expected)
    if op == "ne":
        return lambda v: bool(v != expected)
    if op in ("in", "not_in"):
        if not isinstance(expected, list):
            raise ConditionError(f"'{op}' needs a list, got {expected!r}")
        members = list(expected)
        return (lambda v: v in members) if op == "in" else (lambda v: v not in members)
    if op == "matches":
        if not isinstance(expected, str):
            raise ConditionError(f"'matches' needs a pattern string, got {expected!r}")
        pattern = SafePattern(expected)  # refuses what could backtrack; see pattern.py
        return lambda v: isinstance(v, str) and pattern.search(v)
    if op == "set":
        return lambda v: (v is not None and v != "") == bool(expected)
    order = {"gt": (1,), "gte": (0, 1), "lt": (-1,), "lte": (-1, 0)}[op]
    number = isinstance(expected, (int, float)) and not isinstance(expected, bool)

    def ordered(v: Any) -> bool:
        if number and type(v) in (int, float):  # the common case, without version parsing
            return (v > expected) - (v < expected) in order
        pair = _ordered(v, expected)
        if pair is None:
            return False
        left, right = pair
        return (left > right) - (left < right) in order

    return ordered


# One test's record in a trace: the manifest's values and the outcome. A trace lists every
# test of a condition in the order of `tests_of`, so the records stay small plain tuples.
Match = tuple[Values, Truth]


@dataclass(frozen=True)
class Test:
    fact: str
    op: str
    expected: Any
    every: bool
    missing: Truth
    get: Resolver = field(compare=False)
    check: Callable[[Any], bool] = field(compare=False)

    def evaluate(
        self, doc: Doc, trace: list[Match] | None = None, memo: Memo | None = None
    ) -> Truth:
        if memo is None:
            values = self.get(doc)
        elif self.fact in memo:
            values = memo[self.fact]
        else:
            values = memo[self.fact] = self.get(doc)
        if values is None:
            outcome: Truth = self.missing
        elif not values:
            outcome = self.check(None)  # known to be absent: test the absence itself
        elif len(values) == 1:
            outcome = self.check(values[0])
        elif self.every:
            outcome = all(self.check(v) for v in values)
        else:
            outcome = any(self.check(v) for v in values)
        if trace is not None:
            trace.append((values, outcome))
        return outcome

    def describe(self) -> str:
        return f"{self.fact} {self.op} {self.expected!r}" + (" (every)" if self.every else "")


@dataclass(frozen=True)
class Group:
    kind: str  # all | any | not
    parts: tuple[Condition, ...]

    def evaluate(
        self, doc: Doc, trace: list[Match] | None = None, memo: Memo | None = None
    ) -> Truth:
        if self.kind == "not":
            inner = self.parts[0].evaluate(doc, trace, memo)
            return None if inner is None else not inner
        decisive = self.kind == "any"  # True decides `any`, False decides `all`
        results: list[Truth] = []
        for part in self.parts:
            results.append(part.evaluate(doc, trace, memo))
            if results[-1] is decisive and trace is None:
                return decisive  # short-circuit, unless explaining every fact read
        if decisive in results:
            return decisive
        return None if None in results else not decisive


Condition = Test | Group


def compile_condition(node: Any, where: str = "when") -> Condition:
    """Compile a parsed JSON condition; `ConditionError` names the offending place."""
    if not isinstance(node, dict):
        raise ConditionError(f"{where}: expected an object, got {type(node).__name__}")
    for kind in ("all", "any"):
        if kind in node:
            parts = node[kind]
            if len(node) != 1 or not isinstance(parts, list) or not parts:
                raise ConditionError(f"{where}.{kind}: expected a non-empty list, alone")
            return Group(kind, _compile_all(parts, f"{where}.{kind}"))
    if "not" in node:
        if len(node) != 1:
            raise ConditionError(f"{where}.not: 'not' takes one condition, alone")
        return Group("not", (compile_condition(node["not"], f"{where}.not"),))
    return _compile_test(node, where)


def _compile_all(parts: Sequence[Any], where: str) -> tuple[Condition, ...]:
    return tuple(compile_condition(part, f"{where}[{i}]") for i, part in enumerate(parts))


def _compile_test(node: dict[str, Any], where: str) -> Test:
    fact = node.get("fact")
    ops = [key for key in node if key in OPS]
    extra = set(node) - {"fact", "quantifier", "missing", *OPS}
    if not isinstance(fact, str) or not fact or len(ops) != 1 or extra:
        raise ConditionError(
            f"{where}: a test is {{'fact': NAME, OP: VALUE}} with one OP of {', '.join(OPS)}"
        )
    quantifier = node.get("quantifier", "any")
    if quantifier not in ("any", "every"):
        raise ConditionError(f"{where}: quantifier must be 'any' or 'every'")
    missing = node.get("missing")
    if missing is not None and not isinstance(missing, bool):
        raise ConditionError(f"{where}: missing must be true, false or null")
    op = ops[0]
    try:
        check = _compare(op, node[op])
    except PatternError as exc:
        raise ConditionError(f"{where}: {exc}") from None
    try:
        get = resolver(fact)
    except ValueError as exc:
        raise ConditionError(f"{where}: {exc}") from None
    return Test(fact, op, node[op], quantifier == "every", missing, get, check)


def tests_of(condition: Condition) -> list[Test]:
    """Every test of a condition, in the order a trace records them."""
    if isinstance(condition, Test):
        return [condition]
    return [test for part in condition.parts for test in tests_of(part)]
