"""Read a run's metric: a regex over its stdout, or the contents of a file it writes."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

MAX_METRIC_FILE_BYTES = 1024 * 1024
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.I)


def compile_metric(pattern: str) -> re.Pattern[str]:
    """Compile --metric; a ValueError names the problem in one line."""
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise ValueError(f"--metric is not a valid regular expression: {exc}") from None


def metric_from_text(text: str, pattern: re.Pattern[str] | None) -> float | None:
    """The last match's first group (or whole match), as a float; None when absent.

    Without a pattern the text must be one number (a metric file).
    """
    if pattern is None:
        match = _NUMBER.fullmatch(text.strip())
        return float(match.group(0)) if match else None
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    found = matches[-1]
    value = found.group(1) if pattern.groups else found.group(0)
    number = _NUMBER.search(value or "")
    return float(number.group(0)) if number else None


def read_metric(
    stdout: Path, metric_file: Path | None, pattern: re.Pattern[str] | None
) -> float | None:
    """The metric of one finished run: from `metric_file` when given, else from the end of
    stdout (the last match is wanted, so a long output is read from its last MiB)."""
    source = metric_file if metric_file is not None else stdout
    try:
        with open(source, "rb") as handle:
            data = _tail(handle) if metric_file is None else handle.read(MAX_METRIC_FILE_BYTES)
    except OSError:
        return None
    return metric_from_text(data.decode("utf-8", errors="replace"), pattern)


def _tail(handle: BinaryIO) -> bytes:
    """The last MAX_METRIC_FILE_BYTES of a file, from the start of a line."""
    size = handle.seek(0, os.SEEK_END)
    start = max(0, size - MAX_METRIC_FILE_BYTES)
    handle.seek(start)
    data = handle.read(MAX_METRIC_FILE_BYTES)
    if start > 0:
        data = data[data.find(b"\n") + 1 :]  # the first line was cut: it could hold a prefix
    return data
