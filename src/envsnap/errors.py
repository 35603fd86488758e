"""Error types that the CLI turns into one line on stderr and exit code 2."""

from __future__ import annotations


class EnvsnapError(Exception):
    """A user-facing error: bad input, an unreadable file, an invalid configuration.

    The message is a single line that names the problem and, where it helps, the fix.
    """

    exit_code = 2


class ManifestError(EnvsnapError):
    """A file is not a manifest envsnap can read (not JSON, wrong shape, newer schema...)."""


class ConfigError(EnvsnapError):
    """The `[tool.envsnap]` table, `envsnap.toml` or a `--set` override is invalid."""
