"""The outcome of one envsnap command run by a test."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CliResult:
    code: int
    out: str
    err: str
