"""The rule type and the path-pattern matcher. The catalog itself is data, in `catalog/`.

A rule matches dotted manifest paths with patterns: `*` is one path segment (or part of one),
`**` any number of segments, `{a,b}` either word. `when` narrows a rule to some kinds of change:
`changed`, `added`, `removed`, or a version step (`major`, `minor`, `patch`, `pre`, `post`,
`dev`, `local`, `invalid`) for paths that end in a version.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from envsnap.diff.changes import Change, Path
from envsnap.diff.report import CATEGORY_WEIGHT, SEVERITY_RANK, TARGETS, Category, Severity, Target
from envsnap.diff.versions import step

SEP = "\x1f"  # joins path segments for matching; never appears in a manifest key


@dataclass(frozen=True)
class Rule:
    """One entry of the catalog.

    `severity` is given per reproduction target, in the order (bitwise, close, conclusion).
    Derived rules (`derived=True`) are applied by `derived.py` looking at both manifests at
    once; their `match` lists the paths they read.

    How hits become findings and rank (see `grouping.py` and `ordering.py`):
    `per` splits a rule's hits into one finding per rule, per component (package, library,
    variable) or per path; `merge` names a fact several rules describe together (one finding);
    `specificity` is 0 for a generic change, 1 for a named mechanism or default flip, 2 for a
    known bug window; `latent` marks a capability or default that is not shown to act;
    `gpu_only` settings drop to info when neither side ran on a GPU; `primary` lists the path
    globs whose evidence titles the finding, first match first; `component_title` titles it
    instead when no primary path changed and the titling hit is another component (torch did
    not change, torchaudio did).
    """

    id: str
    match: tuple[str, ...]
    category: Category
    severity: tuple[Severity, Severity, Severity]
    title: str
    why: str
    fix: str
    refs: tuple[str, ...]
    when: tuple[str, ...] = ()
    derived: bool = False
    per: Literal["rule", "component", "path"] = "rule"
    merge: str | None = None
    specificity: int = 0
    latent: bool = False
    gpu_only: bool = False
    primary: tuple[str, ...] = ()
    component_title: str | None = None

    def severity_for(self, target: Target) -> Severity:
        return self.severity[TARGETS.index(target)]

    def matches_path(self, path: Path) -> bool:
        return _rule_regex(self.match).fullmatch(SEP.join(path)) is not None


@cache
def _rule_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled alternation per rule, built on first use (keeps CLI start-up cheap)."""
    return re.compile("|".join(f"(?:{compile_pattern(p).pattern})" for p in patterns), re.DOTALL)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append(f"[^{SEP}]*")
        elif char == "?":
            out.append(f"[^{SEP}]")
        elif char == "{" and "}" in segment[i:]:
            end = segment.index("}", i)
            words = segment[i + 1 : end].split(",")
            out.append("(?:" + "|".join(re.escape(word) for word in words) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a dotted path pattern to a regex over SEP-joined paths."""
    segments = pattern.split(".")
    if segments == ["**"]:
        return re.compile(".*", re.DOTALL)
    out: list[str] = []
    for index, segment in enumerate(segments):
        if segment == "**":
            out.append(f"(?:[^{SEP}]*{SEP})*" if index == 0 else f"(?:{SEP}[^{SEP}]*)*")
            continue
        if index > 0 and not (index == 1 and segments[0] == "**"):
            out.append(SEP)
        out.append(_segment_regex(segment))
    return re.compile("".join(out))


def aspects(change: Change) -> frozenset[str]:
    """The kinds a change counts as, for `Rule.when`."""
    found: set[str] = {change.kind}
    if change.kind == "changed" and change.path[-1].endswith("version"):
        found.add(step(change.a, change.b))
    return frozenset(found)


# A path with its generic segments replaced by None (see `RuleIndex._masked`).
Masked = tuple[str | None, ...]


class RuleIndex:
    """Rules grouped by the first segment of their patterns, for fast lookup.

    Lookups are memoised on the path with its generic segments masked: a segment that no
    pattern segment other than `*` or `**` can match (a package name no rule names) is
    matched only by wildcards, so every such segment gives the same rules. Two hundred
    thousand changed packages then cost one pattern match, not one each.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.order = {rule.id: position for position, rule in enumerate(self.rules)}
        self._by_head: dict[str, list[Rule]] = {}
        for rule in self.rules:
            if rule.derived:
                continue
            for head in {pattern.split(".", 1)[0] for pattern in rule.match}:
                bucket = self._by_head.setdefault(head if _literal(head) else "*", [])
                if rule not in bucket:
                    bucket.append(rule)
        self._named_words, self._named_globs = _named_segments(self.rules)
        self._found: dict[tuple[Masked, frozenset[str]], tuple[Rule, ...]] = {}
        self._claims: dict[tuple[Masked, frozenset[str], str], Rule | None] = {}

    def candidates(self, path: Path) -> Iterable[Rule]:
        yield from self._by_head.get(path[0], ())
        yield from self._by_head.get("*", ())

    def matching(self, change: Change) -> list[Rule]:
        """Rules whose pattern and `when` both fit the change, in catalog order."""
        return list(self._matching(change.path, aspects(change)))

    def claiming(self, change: Change, kinds: frozenset[str], target: Target) -> Rule | None:
        """`most_severe(matching(change), target)`, given the change's `aspects`, memoised."""
        masked = self._masked(change.path)
        if masked is None:
            return self.most_severe(self._matching(change.path, kinds), target)
        key = (masked, kinds, target)
        if key not in self._claims:
            self._claims[key] = self.most_severe(self._matching(change.path, kinds), target)
        return self._claims[key]

    def _matching(self, path: Path, kinds: frozenset[str]) -> tuple[Rule, ...]:
        masked = self._masked(path)
        if masked is None:
            return self._match(path, kinds)
        key = (masked, kinds)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._match(path, kinds)
        return found

    def _match(self, path: Path, kinds: frozenset[str]) -> tuple[Rule, ...]:
        found = [
            rule
            for rule in self.candidates(path)
            if (not rule.when or kinds.intersection(rule.when)) and rule.matches_path(path)
        ]
        found.sort(key=lambda rule: self.order[rule.id])
        # A noise rule names a path precisely as not result-relevant (a relocated file, a pid);
        # it must beat the broad catch-alls of its section, or a moved checkout ranks critical.
        noise = [rule for rule in found if rule.category == "noise"]
        return tuple(noise or found)

    def _masked(self, path: Path) -> Masked | None:
        """The path with every segment no pattern names replaced by None; None when no
        segment is generic (nothing to share with other paths)."""
        masked = tuple(
            part if part in self._named_words or self._named_globs.fullmatch(part) else None
            for part in path
        )
        return masked if None in masked else None

    def most_severe(self, rules: Sequence[Rule], target: Target) -> Rule | None:
        """The rule that claims a path: most severe for `target`, then the more specific, then
        the weightier category; catalog order only breaks exact ties between rules that match
        the same path (it never orders findings)."""
        if not rules:
            return None
        return max(
            rules,
            key=lambda rule: (
                SEVERITY_RANK[rule.severity_for(target)],
                rule.specificity,
                bool(rule.when),
                CATEGORY_WEIGHT[rule.category],
                -self.order[rule.id],
            ),
        )


def _literal(segment: str) -> bool:
    return not any(char in segment for char in "*?{")


def _named_segments(rules: Iterable[Rule]) -> tuple[frozenset[str], re.Pattern[str]]:
    """The words and the glob segments (`nvidia-*`, `?`) the rules' patterns hold, besides
    the bare wildcards `*` and `**`; a path segment that matches neither is generic."""
    words: set[str] = set()
    globs: list[str] = []
    for rule in rules:
        for pattern in rule.match:
            for segment in pattern.split("."):
                if segment in ("*", "**"):
                    continue
                if _literal(segment):
                    words.add(segment)
                else:
                    globs.append(_segment_regex(segment))
    # `(?!)` never matches: no glob segments at all.
    return frozenset(words), re.compile("|".join(f"(?:{g})" for g in globs) or "(?!)", re.DOTALL)
