"""The one escaping layer: manifest text is untrusted and every renderer escapes it here.

A manifest can come from anywhere (a file someone sent, an imported record), so any string in
it may hold markup or control characters. Renderers pass such text through the function for
their output: `html_text` for HTML, `markdown_cell` for a markdown table cell, and
`terminal_text` for what a terminal shows.
"""

from __future__ import annotations

import html


def html_text(value: object) -> str:
    """Text safe inside an HTML element or a quoted attribute."""
    return html.escape(str(value), quote=True)


def markdown_cell(text: str) -> str:
    """Text that stays inside one markdown table cell: pipes escaped, on one line."""
    return text.replace("|", "\\|").replace("\n", " ")


def terminal_text(text: str) -> str:
    """Text with control characters (terminal escape sequences) shown escaped, not sent."""
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )
