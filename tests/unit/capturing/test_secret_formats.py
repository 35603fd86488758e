"""Every vendored token format compiles, names its source and is caught in free text.

Example values are built at run time from expressions (`'ghp_' + 'x'*36`) so that no
token-shaped literal sits in the repository.
"""

from __future__ import annotations

import json
import re

import pytest

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
