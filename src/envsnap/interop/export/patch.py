"""The dirty-tree patch a manifest keeps (`code.patch`), for `git apply` on the recorded commit."""

from __future__ import annotations

from typing import TextIO

from envsnap.errors import EnvsnapError
from envsnap.manifest.model import Manifest
from envsnap.render.escape import terminal_lines, write_exact


class NoPatchError(EnvsnapError):
    """The manifest holds no patch to export; the message says why."""


def patch_of(manifest: Manifest, name: str) -> str:
    """`code.patch` of MANIFEST (named NAME in messages), or NoPatchError saying why it is absent.

    Applied with `git apply` on a checkout of `code.commit`, it restores the tracked files as
    they were at capture; untracked files are counted and digested, never kept.
    """
    code = manifest.code
    if code is None:
        record = manifest.collectors.get("code")
        reason = record.reason if record is not None and record.reason else "not collected"
        raise NoPatchError(f"{name}: no code section ({reason}); no patch to export")
    if code.patch is not None:
        return code.patch
    if code.diff_bytes == 0:
        raise NoPatchError(
            f"{name}: the tracked files were clean at capture; `git checkout {code.commit}` "
            "restores the code"
        )
    why = code.unknown.get("patch", "this manifest does not keep the patch itself")
    raise NoPatchError(f"{name}: no patch kept: {why}")


def patch_for_terminal(text: str) -> str:
    """The patch as a terminal may show it (`render.escape.terminal_lines`).

    A patch is code someone else may have written, and a manifest may come from anywhere:
    sent raw, `\\x1b]0;...\\x07` retitles the terminal and `\\x1b[2J` clears it.
    """
    return terminal_lines(text)


def print_patch(text: str, stream: TextIO) -> None:
    """Write the patch to `stream` (stdout): to a file or a pipe byte for byte, so `git apply`
    takes it; to a terminal through `patch_for_terminal`."""
    write_exact(text, stream, patch_for_terminal)
