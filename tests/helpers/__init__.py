"""Helpers the tests share (fixtures stay in tests/conftest.py)."""

from tests.helpers.capture import assert_valid_section, capture_context, reads_blocked_by_chmod
from tests.helpers.cli import CliResult
from tests.helpers.git import git
from tests.helpers.paths import FIXTURES, REPO_ROOT

__all__ = [
    "FIXTURES",
    "REPO_ROOT",
    "CliResult",
    "assert_valid_section",
    "capture_context",
    "git",
    "reads_blocked_by_chmod",
]
