"""The `matches` patterns: the grammar covers the bundled database, refuses what backtracks,
agrees with `re.search(..., re.IGNORECASE)` where both apply, and takes linear time."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

from envsnap.audit.database import bundled
from envsnap.audit.pattern import MAX_PATTERN_CHARS, PatternError, SafePattern


def _patterns(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["matches"]] if "matches" in node else []
        return own + [p for value in node.values() for p in _patterns(value)]
    if isinstance(node, list):
        return [p for value in node for p in _patterns(value)]
    return []


BUNDLED = sorted({p for a in bundled().advisories for p in _patterns(a.envsnap.when)})


def test_the_bundled_database_uses_patterns() -> None:
    assert len(BUNDLED) >= 8  # so the tests below cover real use


@pytest.mark.parametrize("pattern", BUNDLED)
def test_every_bundled_pattern_is_accepted(pattern: str) -> None:
    SafePattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(a+)+$", "group cannot be repeated"),
        ("(a|a)*$", "group cannot be repeated"),
        ("(.*)*x", "group cannot be repeated"),
        ("(ab){2}", "group cannot be repeated"),
        ("(a)\\1", "backreferences"),
        ("(?=a)a", "lookarounds"),
        ("(?!a)b", "lookarounds"),
        ("(?<=a)b", "lookarounds"),
        ("(?<!a)b", "lookarounds"),
        ("(?:a|b)", "(?...) groups"),
        ("a**", "quantifier cannot be repeated"),
        ("a+?", "quantifier cannot be repeated"),
        ("a{2}{3}", "quantifier cannot be repeated"),
        ("*a", "repeats nothing"),
        ("^*", "repeats nothing"),
        ("((a))", "cannot be nested"),
        ("\\bword", "\\b is not supported"),
        ("a{99}", "counts go from 0"),
        ("a{3,2}", "counts go from 0"),
        ("a{", "'{' starts no"),
        ("[a", "without its ']'"),
        ("(a", "without its ')'"),
        ("a)", "without its '('"),
        ("[z-a]", "bad range"),
        ("x" * (MAX_PATTERN_CHARS + 1), "longer than"),
        ("a{32}" * 40, "too many repeats"),
    ],
)
def test_outside_the_grammar_is_refused_with_the_reason(pattern: str, why: str) -> None:
    with pytest.raises(PatternError, match=re.escape(why)):
        SafePattern(pattern)


EXTRA = [
    "a*",
    "a+b",
    "^a?$",
    "a{2,3}",
    "a{1,}b",
    "x{0}",
    "[^a]",
    ".",
    "b$",
    "$",
    "^",
    "^$",
    "a$\n",
    "(a|b)c",
    "(^|,)a",
    "a|^b",
    "[a-c]+$",
    "\\d\\s",
    "[\\d,]",
    "\\W",
    "[^\\n]$",
    "[]a]",
    "[a-]",
    "\\.\\*",
    "",
]
SUBJECTS = [
    "ring",
    "  RING \n",
    "ring\n\n",
    "MI250X",
    "AMD Instinct MI210",
    "nccl,NVLS",
    "llama-3",
    "Llama3",
    "LlamaForCausalLM",
    "GPT2LMHeadModel\n",
    "a.*",
    "ÅåSS ß",
]


def test_matches_as_re_search_ignorecase_does() -> None:
    generator = random.Random(7)
    subjects = SUBJECTS + [
        "".join(generator.choice("aAbc\n ,1.-]*") for _ in range(generator.randint(0, 9)))
        for _ in range(1500)
    ]
    for pattern in BUNDLED + EXTRA:
        ours, theirs = SafePattern(pattern), re.compile(pattern, re.IGNORECASE)
        differ = [s for s in subjects if ours.search(s) != (theirs.search(s) is not None)]
        assert not differ, (pattern, differ[:3])


# Patterns the grammar accepts on which Python's backtracking `re` takes seconds or more on a
# long value (`\s*\s*x` on 2,000 spaces: about 9 s); here each is one pass over the value.
WORST = ["\\s*\\s*x", "a*a*a*a*b", ".*.*.*x", "[a-z]*[a-z]*[a-z]*$", "(^|,)\\s*nvls", "a{0,32}$"]


@pytest.mark.parametrize("pattern", WORST + BUNDLED)
def test_a_100_kb_value_is_matched_in_bounded_time(pattern: str) -> None:
    compiled = SafePattern(pattern)
    for value in (" " * 100_000, "a" * 100_000, ", " * 50_000 + "\n"):
        start = time.perf_counter()
        compiled.search(value)
        assert time.perf_counter() - start < 1.0, (pattern, value[:2])


def test_a_match_late_in_a_long_value_is_found() -> None:
    value = "a" * 100_000 + "x"
    assert SafePattern("a*a*x$").search(value)
    assert not SafePattern("a*a*y").search(value)
