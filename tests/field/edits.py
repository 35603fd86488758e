"""An uncommitted edit that pins torch settings in the job's own script, as a user's edit does.

A side's `repo.dirty_sets` names job settings that its dirty tree applies: the route writes
their statements into `train.py` (after the line that applies the spec's settings) and leaves
them out of the spec, so the script's own lines set them and the recorded patch shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def _assign(attribute: str) -> Callable[[Any], list[str]]:
    return lambda value: [f"{attribute} = {value!r}"]


def _call(function: str) -> Callable[[Any], list[str]]:
    return lambda value: [f"{function}({value!r})"]


# job key -> the statements that set it in a script.
SETTING_LINES: dict[str, Callable[[Any], list[str]]] = {
    "sdpa": lambda backends: [
        f"torch.backends.cuda.enable_{backend}_sdp({enabled!r})"
        for backend, enabled in sorted(backends.items())
    ],
    "deterministic": _call("torch.use_deterministic_algorithms"),
    "cudnn_benchmark": _assign("torch.backends.cudnn.benchmark"),
    "cudnn_deterministic": _assign("torch.backends.cudnn.deterministic"),
    "cudnn_allow_tf32": _assign("torch.backends.cudnn.allow_tf32"),
    "allow_tf32": _assign("torch.backends.cuda.matmul.allow_tf32"),
    "float32_matmul_precision": _call("torch.set_float32_matmul_precision"),
    "threads": _call("torch.set_num_threads"),
}
ANCHOR = "    _flags(torch, job)\n"


def pin_in_script(script: Path, settings: dict[str, Any]) -> None:
    """Write the statements for `settings` into the script after the line that applies the
    spec's settings: a real edit of the tracked file."""
    text = script.read_text("utf-8")
    if text.count(ANCHOR) != 1:
        raise RuntimeError(f"{script}: no single line {ANCHOR.strip()!r} to edit after")
    lines = [
        f"    {line}\n" for key in sorted(settings) for line in SETTING_LINES[key](settings[key])
    ]
    script.write_text(text.replace(ANCHOR, ANCHOR + "".join(lines)), encoding="utf-8")
