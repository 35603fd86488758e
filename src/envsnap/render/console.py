"""A rich console that renders into a string."""

from __future__ import annotations

import re
import shutil
import sys
from io import StringIO
from typing import Any

# Without a terminal or COLUMNS (a pipe, a file, CI), text is laid out this wide; narrower
# than this many columns, tables stop being readable and are laid out at the floor instead.
DEFAULT_WIDTH = 110
MIN_WIDTH = 40


def terminal_width(default: int = DEFAULT_WIDTH) -> int:
    """COLUMNS, else the terminal's width, else `default`; never below MIN_WIDTH."""
    return max(MIN_WIDTH, shutil.get_terminal_size((default, 24)).columns)


def render_to_text(*renderables: Any, color: bool | None = None, width: int | None = None) -> str:
    """Render rich objects to text, `width` columns wide (default: the terminal's width).

    `color=None` means colour only when stdout is a TTY.
    """
    from rich.console import Console

    width = width or terminal_width()
    use_color = sys.stdout.isatty() if color is None else color
    buffer = StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=use_color,
        no_color=not use_color,
        color_system="standard" if use_color else None,
        highlight=False,
        soft_wrap=False,
    )
    for renderable in renderables:
        console.print(renderable)
    # rich pads wrapped and indented text to the full width; the padding is invisible on a
    # terminal but sticks to every line pasted into an issue or a file.
    return _TRAILING_SPACES.sub(r"\1", buffer.getvalue())


# Spaces at the end of a line, before any colour codes that close it.
_TRAILING_SPACES = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)
