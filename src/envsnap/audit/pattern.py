"""The patterns of the `matches` test: a small regular-expression grammar, matched in linear time.

An advisory database may come from anywhere (`--db DIR`), so its patterns are not handed to
Python's `re`, a backtracking engine: `(a+)+$` or even `\\s*\\s*x` take seconds to hours on a
long enough fact value. Patterns are parsed here instead, against the smallest grammar that
covers the bundled database, and anything else is refused when the database loads:

    pattern := branch ("|" branch)*
    branch  := (atom [quantifier] | "^" | "$" | group)*
    group   := "(" branch ("|" branch)* ")"     never quantified, never nested
    atom    := a literal character | "." | class | \\d \\D \\s \\S \\w \\W \\t \\n \\r | \\ punctuation
    class   := "[" ["^"] (char | char "-" char | \\d \\D \\s \\S \\w \\W | \\ punctuation)+ "]"
    quantifier := "*" | "+" | "?" | "{m}" | "{m,}" | "{m,n}"   (n <= 32)

Semantics are those of `re.search(pattern, value, re.IGNORECASE)` for this grammar: `^` is the
start of the value, `$` its end or just before a final newline, `.` anything but a newline,
classes as Unicode `str` methods define them. The pattern compiles to an NFA that is run as a
DFA built lazily (the approach of RE2 and of Thompson's 1968 construction; see Russ Cox,
"Regular Expression Matching Can Be Simple And Fast", https://swtch.com/~rsc/regexp/regexp1.html),
so a match costs one step per character of the value whatever the pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Union

from envsnap.audit import deadline

MAX_PATTERN_CHARS = 200
MAX_REPEAT = 32
MAX_STATES = 1024  # NFA states, so a cache miss stays cheap
_CACHE_LIMIT = 8192  # DFA transitions kept per pattern before the cache starts again
_CHECK_EVERY = 4096  # characters between two looks at the deadline

_CLASSES: dict[str, tuple[Callable[[str], bool], bool]] = {  # \x -> (test, negated)
    "d": (str.isdecimal, False),
    "D": (str.isdecimal, True),
    "s": (str.isspace, False),
    "S": (str.isspace, True),
    "w": (lambda c: c.isalnum() or c == "_", False),
    "W": (lambda c: c.isalnum() or c == "_", True),
}
_CONTROL = {"t": "\t", "n": "\n", "r": "\r"}
_SPECIAL = set("^$.|?*+()[]{}\\")


class PatternError(ValueError):
    """A pattern outside the grammar; the message says what is not allowed."""


@dataclass(frozen=True)
class CharSet:
    """Which characters one step accepts, compared case-insensitively."""

    ranges: tuple[tuple[str, str], ...] = ()
    classes: tuple[tuple[Callable[[str], bool], bool], ...] = ()
    negated: bool = False

    def _holds(self, char: str) -> bool:
        return any(low <= char <= high for low, high in self.ranges) or any(
            test(char) != negated for test, negated in self.classes
        )

    def accepts(self, char: str) -> bool:
        forms = {char, *(form for form in (char.lower(), char.upper()) if len(form) == 1)}
        return any(self._holds(form) for form in forms) != self.negated


ANY_BUT_NEWLINE = CharSet(ranges=(("\n", "\n"),), negated=True)


@dataclass(frozen=True)
class Piece:
    chars: CharSet
    low: int
    high: int | None  # None: unbounded


Branch = list[Union[Piece, str, "Group"]]  # a str is an anchor, "^" or "$"


@dataclass(frozen=True)
class Group:
    branches: list[Branch]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def fail(self, why: str) -> PatternError:
        return PatternError(f"pattern {self.text!r} is not allowed: {why}")

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def alternatives(self, nested: bool) -> list[Branch]:
        branches = [self.branch(nested)]
        while self.peek() == "|":
            self.take()
            branches.append(self.branch(nested))
        return branches

    def branch(self, nested: bool) -> Branch:
        items: Branch = []
        while self.peek() not in ("", "|", ")"):
            char = self.peek()
            if char in "^$":
                items.append(self.take())
            elif char == "(":
                if nested:
                    raise self.fail("groups cannot be nested")
                items.append(self.group())
            elif char in "*+?{":
                raise self.fail(f"{char!r} repeats nothing, or repeats a repeat or an anchor")
            else:
                chars = self.atom()
                low, high = self.quantifier()
                items.append(Piece(chars, low, high))
        return items

    def group(self) -> Group:
        self.take()
        if self.peek() == "?":
            raise self.fail("lookarounds and (?...) groups are not supported")
        group = Group(self.alternatives(nested=True))
        if self.take() != ")":
            raise self.fail("'(' without its ')'")
        if self.peek() and self.peek() in "*+?{":
            raise self.fail("a group cannot be repeated (only single characters or classes)")
        return group

    def atom(self) -> CharSet:
        char = self.take()
        if char == ".":
            return ANY_BUT_NEWLINE
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.escape(in_class=False)
        if char in ")]}":
            raise self.fail(f"unbalanced {char!r} (write \\{char} for the character)")
        return CharSet(ranges=((char, char),))

    def escape(self, in_class: bool) -> CharSet:
        char = self.take()
        if char in _CLASSES:
            return CharSet(classes=(_CLASSES[char],))
        if char in _CONTROL:
            char = _CONTROL[char]
        elif char.isdigit():
            raise self.fail("backreferences are not supported")
        elif not char or char.isalnum() or char == "_":
            shown = f"\\{char}" if char else "a trailing \\"
            raise self.fail(f"{shown} is not supported")
        return CharSet(ranges=((char, char),))

    def char_class(self) -> CharSet:
        negated = self.peek() == "^"
        if negated:
            self.take()
        ranges: list[tuple[str, str]] = []
        classes: list[tuple[Callable[[str], bool], bool]] = []
        first = True
        while first or self.peek() != "]":
            first = False
            char = self.take()
            if not char:
                raise self.fail("'[' without its ']'")
            if char == "\\":
                escaped = self.escape(in_class=True)
                ranges.extend(escaped.ranges)
                classes.extend(escaped.classes)
                continue
            if char == "[":
                raise self.fail("'[' inside a class (write \\[)")
            high = char
            if self.peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("]", ""):
                self.take()
                high = self.take()
                if high == "\\":
                    escaped = self.escape(in_class=True)
                    if not escaped.ranges:
                        raise self.fail("a class (\\d, \\s, \\w) cannot end a range")
                    high = escaped.ranges[0][0]
                if high < char:
                    raise self.fail(f"bad range {char}-{high}")
            ranges.append((char, high))
        self.take()
        return CharSet(tuple(ranges), tuple(classes), negated)

    def quantifier(self) -> tuple[int, int | None]:
        char = self.peek()
        bounds: tuple[int, int | None] = (1, 1)
        if char in ("*", "+", "?"):
            self.take()
            bounds = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{":
            bounds = self.counted()
        if self.peek() and self.peek() in "*+?{":
            raise self.fail("a quantifier cannot be repeated (nor made lazy or possessive)")
        return bounds

    def counted(self) -> tuple[int, int | None]:
        end = self.text.find("}", self.at)
        body = self.text[self.at + 1 : end] if end > 0 else ""
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or not (high_text.isdigit() or not high_text):
            raise self.fail("'{' starts no {m}, {m,} or {m,n} (write \\{ for the character)")
        self.at = end + 1
        low = int(low_text)
        high = int(high_text) if high_text else (None if comma else low)
        if low > MAX_REPEAT or (high is not None and not low <= high <= MAX_REPEAT):
            raise self.fail(f"counts go from 0 to {MAX_REPEAT}, the lower first")
        return low, high


_CHAR, _SPLIT, _BEGIN, _END, _MATCH = range(5)


class _Nfa:
    """States in parallel lists: kind, the next state, the other next state of a split."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kind: list[int] = []
        self.chars: list[CharSet | None] = []
        self.out: list[int] = []
        self.alt: list[int] = []

    def add(self, kind: int, out: int = -1, alt: int = -1, chars: CharSet | None = None) -> int:
        if len(self.kind) >= MAX_STATES:
            raise PatternError(f"pattern {self.text!r} is not allowed: too many repeats")
        self.kind.append(kind)
        self.chars.append(chars)
        self.out.append(out)
        self.alt.append(alt)
        return len(self.kind) - 1

    def either(self, starts: list[int]) -> int:
        start = starts[-1]
        for first in reversed(starts[:-1]):
            start = self.add(_SPLIT, first, start)
        return start

    def branches(self, branches: Iterable[Branch], then: int) -> int:
        return self.either([self.sequence(branch, then) for branch in branches])

    def sequence(self, branch: Branch, then: int) -> int:
        for item in reversed(branch):
            if isinstance(item, Group):
                then = self.branches(item.branches, then)
            elif isinstance(item, str):
                then = self.add(_BEGIN if item == "^" else _END, then)
            else:
                then = self.piece(item, then)
        return then

    def piece(self, piece: Piece, then: int) -> int:
        start = then
        if piece.high is None:
            start = self.add(_SPLIT, alt=then)
            self.out[start] = self.add(_CHAR, start, chars=piece.chars)
        else:
            for _ in range(piece.high - piece.low):
                start = self.add(_SPLIT, self.add(_CHAR, start, chars=piece.chars), then)
        for _ in range(piece.low):
            start = self.add(_CHAR, start, chars=piece.chars)
        return start


class SafePattern:
    """A compiled pattern; `search(value)` is `re.search` with IGNORECASE, in linear time."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_PATTERN_CHARS:
            raise PatternError(
                f"pattern {text[:40]!r}... is not allowed: longer than {MAX_PATTERN_CHARS} characters"
            )
        parser = _Parser(text)
        branches = parser.alternatives(nested=False)
        if parser.at < len(text):
            raise parser.fail("')' without its '('")
        self.text = text
        self._nfa = nfa = _Nfa(text)
        self._start = nfa.branches(branches, nfa.add(_MATCH))
        # DFA transitions met so far: (states, character, whether `$` holds after it).
        self._next: dict[tuple[frozenset[int], str, bool], tuple[frozenset[int], bool]] = {}
        # Where a search begins, for a value with more characters to come and for an empty one.
        self._first = {end: self._closure((), begin=True, end=end) for end in (False, True)}
        # With every branch anchored at the start, nothing can begin after the first character.
        self._anchored = self._closure((), begin=False, end=True) == (frozenset(), False)

    def __repr__(self) -> str:
        return f"SafePattern({self.text!r})"

    def _closure(
        self, states: Iterable[int], *, begin: bool, end: bool
    ) -> tuple[frozenset[int], bool]:
        """The character-consuming states reachable from `states` (and the start) without
        consuming, and whether the match state is one of them."""
        nfa, seen, found, matched = self._nfa, set(), set(), False
        stack = [*states, self._start]
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = nfa.kind[state]
            if kind == _CHAR:
                found.add(state)
            elif kind == _SPLIT:
                stack += (nfa.out[state], nfa.alt[state])
            elif kind == _MATCH:
                matched = True
            elif (kind == _BEGIN and begin) or (kind == _END and end):
                stack.append(nfa.out[state])
        return frozenset(found), matched

    def _step(self, states: frozenset[int], char: str, end: bool) -> tuple[frozenset[int], bool]:
        nfa = self._nfa
        moved = [nfa.out[s] for s in states if nfa.chars[s].accepts(char)]  # type: ignore[union-attr]
        return self._closure(moved, begin=False, end=end)

    def search(self, value: str) -> bool:
        """True when the pattern matches somewhere in `value`."""
        # `$` holds at the end, and before a final newline.
        end_from = len(value) - 1 if value.endswith("\n") else len(value)
        states, matched = self._first[end_from <= 0]
        cache = self._next
        for index, char in enumerate(value, 1):
            if matched:
                return True
            if not states and self._anchored:
                return False
            key = (states, char, index >= end_from)
            step = cache.get(key)
            if step is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                step = cache[key] = self._step(states, char, end=key[2])
            states, matched = step
            if not index % _CHECK_EVERY:
                deadline.check()
        return matched
