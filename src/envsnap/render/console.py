"""A rich console that renders into a string."""

from __future__ import annotations

import re
import sys
from io import StringIO
from typing import Any


def render_to_text(*renderables: Any, color: bool | None = None, width: int = 110) -> str:
    """Render rich objects to text. `color=None` means colour only when stdout is a TTY."""
    from rich.console import Console

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
