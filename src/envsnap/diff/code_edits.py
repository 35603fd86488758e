"""An uncommitted edit that only sets torch settings is how those settings changed: one cause.

A dirty tree ranks high because a commit no longer says what code ran. When the recorded
patch (`code.patch`) shows what did run, and every line it adds or removes sets a torch
setting whose recorded value differs between the sides (an `enable_cudnn_sdp(False)` pin, a
`cudnn.benchmark = True`), the edit's effect is known: it is that setting's difference. The
dirty-tree hits then join the setting's finding as the way it came about, at info (they add
no effect of their own), and the title says the edit set it. A patch with any other line (a
changed loss, a config file, a comment-free refactor) keeps its own finding: it may change
anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from envsnap.diff.derived import Hit, get
from envsnap.diff.grouping import group_key, hit_severity
from envsnap.diff.report import SEVERITY_RANK, Severity, Target
from envsnap.diff.sides import Side, where

Doc = dict[str, Any]
DIRTY_RULE = "code.dirty"
_INFO: tuple[Severity, Severity, Severity] = ("info", "info", "info")
# A statement that sets a torch setting, and the recorded paths that setting shows at.
_SETTERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\benable_(?:flash|mem_efficient|math|cudnn)_sdp\s*\("), "torch.sdpa."),
    (re.compile(r"\buse_deterministic_algorithms\s*\("), "torch.deterministic."),
    (
        re.compile(r"\bbackends\.cudnn\.(?:benchmark|deterministic|enabled|allow_tf32)\s*="),
        "torch.cudnn.",
    ),
    (re.compile(r"\bbackends\.cuda\.matmul\.allow_tf32\s*="), "torch.matmul."),
    (re.compile(r"\bset_float32_matmul_precision\s*\("), "torch.matmul."),
    (re.compile(r"\bset_num_threads\s*\("), "torch.num_threads"),
    (re.compile(r"\bset_num_interop_threads\s*\("), "torch.num_interop_threads"),
)
_HEADERS = ("diff --git ", "index ", "--- ", "+++ ", "@@", "new file mode", "deleted file mode")


def edited_settings(patch: str) -> set[str] | None:
    """The recorded path prefixes of the settings a patch sets, or None when any line it adds
    or removes is something else (blank lines and comments aside)."""
    prefixes: set[str] = set()
    for line in patch.splitlines():
        if line.startswith(_HEADERS) or not line.startswith(("+", "-")):
            continue
        statement = line[1:].strip()
        if not statement or statement.startswith("#"):
            continue
        prefix = next((p for pattern, p in _SETTERS if pattern.search(statement)), None)
        if prefix is None:
            return None
        prefixes.add(prefix)
    return prefixes or None


def _dirty_sides(a: Doc, b: Doc) -> list[Side] | None:
    """The sides with an uncommitted edit, or None when a dirty side's patch is not recorded."""
    sides: list[Side] = []
    documents: tuple[tuple[Side, Doc], ...] = (("a", a), ("b", b))
    for side, doc in documents:
        if get(doc, "code.dirty") is True:
            if not isinstance(get(doc, "code.patch"), str):
                return None
            sides.append(side)
    return sides


def join_code_edits(hits: list[Hit], a: Doc, b: Doc, target: Target) -> list[Hit]:
    """The dirty-tree hits joined to the finding of the setting the edit sets, when the
    recorded patches set nothing else and that setting's recorded value differs."""
    dirty = [hit for hit in hits if hit.rule == DIRTY_RULE]
    sides = _dirty_sides(a, b)
    if not dirty or not sides:
        return hits
    prefixes: set[str] = set()
    for side in sides:
        edited = edited_settings(get(a if side == "a" else b, "code.patch"))
        if edited is None:
            return hits
        prefixes |= edited
    differing = [
        hit for hit in hits if hit.rule != DIRTY_RULE and hit.path.startswith(tuple(prefixes))
    ]
    if not all(any(hit.path.startswith(prefix) for hit in differing) for prefix in prefixes):
        return hits  # the edit sets a value both sides record alike: its effect is not shown
    setting = max(differing, key=lambda hit: SEVERITY_RANK[hit_severity(hit, target)])
    cause, joined_component = group_key(setting)
    return [
        replace(
            hit,
            consequence_of=cause,
            component=joined_component or None,
            severity=_INFO,
            active=False,
        )
        if hit.rule == DIRTY_RULE
        else hit
        for hit in hits
    ]


def set_by_edit(hits: Sequence[Hit]) -> str:
    """'; set by the uncommitted edit in A' on a finding the dirty-tree hits joined; empty on
    any other."""
    flags = [hit for hit in hits if hit.rule == DIRTY_RULE and hit.path == "code.dirty"]
    if not flags or flags[0].consequence_of is None:
        return ""
    edited: tuple[tuple[Side, Any], ...] = (("a", flags[0].a), ("b", flags[0].b))
    places = " and ".join(where(side, "in") for side, dirty in edited if dirty is True)
    return f"; set by the uncommitted edit {places}" if places else ""
