"""Every vendored token format compiles, names its source and is caught in free text.

Example values are built at run time from expressions (`'ghp_' + 'x'*36`) so that no
token-shaped literal sits in the repository.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from envsnap.capturing import redact
from envsnap.capturing.redact import REDACTED, Redactor
from envsnap.capturing.secret_formats import KEYED, WHOLE
from tests.helpers import FIXTURES

EXAMPLES: dict[str, str] = json.loads((FIXTURES / "secret_examples.json").read_text())
R = Redactor()


def _example(name: str) -> str:
    value = eval(EXAMPLES[name], {"__builtins__": {}})  # expressions of string literals only
    assert isinstance(value, str)
    return value


@pytest.mark.parametrize("fmt", WHOLE + KEYED, ids=lambda f: f.name)
def test_format_catches_its_example_in_free_text(fmt: object) -> None:
    name, pattern, source = fmt  # type: ignore[misc]
    assert source.startswith("http") or "gitleaks rule" in source or "detect-secrets" in source
    value = _example(name)
    assert re.search(pattern, value)
    text = f"run started with {value} and more"
    out = R.redact_text(text)
    assert REDACTED in out
    # The secret part is gone: its longest run of letters and digits is no longer there.
    longest = max(re.findall(r"[A-Za-z0-9]+", value), key=len)
    assert longest not in out or len(longest) < 8


def test_formats_leave_an_ordinary_manifest_alone() -> None:
    document = json.loads((FIXTURES / "manifests" / "full.json").read_text())
    assert R.redact_json(document, by_name=False) == document


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("deploy:hunter2@build.example.com:repo.git", "hunter2"),
        ("https://alice:pa/ss@word@host.example.com/x", "pa/ss@word"),
        ("Authorization: Basic abcdefghijkl", "abcdefghijkl"),
        ("sk_live_" + "x" * 24, "x" * 24),
        ("https://hooks.slack.com/services/" + "T0000/B0000/" + "X" * 24, "X" * 24),
    ],
)
def test_structural_credentials(text: str, hidden: str) -> None:
    assert hidden not in R.redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "git@github.com:org/repo.git",
        "https://pypi.org/simple/torch@2.1",
        "http://localhost:8080/a@b",
        "Bearer authentication is used",
        "ssh://git@host/x",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert R.redact_text(text) == text


def test_keys_that_redact_alike_stay_distinct() -> None:
    token_a, token_b = "ghp_" + "a" * 36, "ghp_" + "b" * 36
    out = R.redact_json({f"{token_a}.csv": 1, f"{token_b}.csv": 2})
    assert sorted(out.values()) == [1, 2]
    assert len(out) == 2


def _reference_value_pass(text: str) -> str:
    """The value formats as one alternation over the whole text: what word-by-word matching
    must equal (it is only faster). A percent escape separates, as the character it stands for
    would: the one-word formats run over the text between escapes (PEM blocks, which span
    spaces and lines, over the whole text first)."""
    text = re.compile(redact._PEM.pattern).sub(REDACTED, text)
    patterns = (*redact._TOKEN_PATTERNS, *(fmt.pattern for fmt in WHOLE))
    alternation = re.compile("|".join(f"(?:{p})" for p in patterns))
    parts = re.split(r"(%[0-9A-Fa-f]{2})", text)
    return "".join(p if i % 2 else alternation.sub(REDACTED, p) for i, p in enumerate(parts))


TOKEN_EXAMPLES = [
    "hf_" + "Ab3" * 8,
    "api_org_" + "Zz9" * 8,
    "ghp_" + "a1B" * 10,
    "github_pat_" + "A1_" * 10,
    "glpat-" + "x-Y1" * 5,
    "sk-" + "aB3" * 9,
    "sk-proj-" + "Q" * 4 + "_z-" * 8,
    "AKIA" + "ABCDEFGHIJKLMNO2",
    "xoxb-" + "1234-abc" * 2,
    "AIza" + "x" * 35,
    "npm_" + "N1" * 16,
    "eyJ" + "hbGciOi" + ".eyJ" + "zdWIiOi" + "." + "sig_Nat-ure",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIB" + "x" * 40 + "\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMIIB cut short",
]
EDGES = ["", " ", "\t", "\n", '"', "'", "`", "<", ">", ",", ";", "(", ")", "[", "]", "{", "}"]
EDGES += ["x", "7", "_", "-", "=", ":", "/", ".", "@", "~", "%22", "%3D", "%2F", "%20", "%41"]


@pytest.mark.parametrize("value", [*TOKEN_EXAMPLES, *(_example(fmt.name) for fmt in WHOLE)])
def test_word_by_word_matching_equals_whole_text_matching(value: str) -> None:
    for left in EDGES:
        for right in EDGES:
            text = f"start{left}{value}{right}end, then {value}"
            assert R._redact_formats(text) == _reference_value_pass(text), (left, right)


def test_word_by_word_matching_equals_whole_text_matching_on_long_source() -> None:
    """The project's own redaction sources: long text dense with token-shaped patterns."""
    root = Path(redact.__file__).parent
    for name in ("redact.py", "secret_formats.py"):
        text = (root / name).read_text(encoding="utf-8")
        assert R._redact_formats(text) == _reference_value_pass(text)


def test_no_value_format_matches_fewer_characters_than_the_word_threshold() -> None:
    """Words shorter than SHORTEST_TOKEN are skipped: no format may match in fewer."""
    if sys.version_info >= (3, 11):
        from re import _parser as parser
    else:  # pragma: no cover - exercised on 3.10 only
        import sre_parse as parser
    patterns = (*redact._TOKEN_PATTERNS, redact._PEM.pattern, *(fmt.pattern for fmt in WHOLE))
    for pattern in patterns:
        assert parser.parse(pattern).getwidth()[0] >= redact.SHORTEST_TOKEN, pattern


@pytest.mark.parametrize("fmt", WHOLE, ids=lambda f: f.name)
@pytest.mark.parametrize("escape", ["%22", "%3D", "%2F", "%20", "%3A"])
def test_format_is_caught_right_after_a_percent_escape(fmt: object, escape: str) -> None:
    """`%22AIza...%22` in a URL-escaped value: the escape's last digit or letter must not hide
    the token's start."""
    name = fmt[0]  # type: ignore[index]
    value = _example(name)
    out = R.redact_text(f"https://h.example.com/x?q={escape}{value}{escape}&n=1")
    longest = max(re.findall(r"[A-Za-z0-9]+", value), key=len)
    assert longest not in out or len(longest) < 8


def test_google_api_key_example_is_in_the_corpus() -> None:
    value = _example("Google API key")
    assert re.fullmatch(r"AIza[0-9A-Za-z_-]{35}", value)
    assert R.redact_value("MAPS_CONFIG", f"k={value}") == f"k={REDACTED}"
    assert R.redact_text(f"%22{value}%22") == f"%22{REDACTED}%22"
