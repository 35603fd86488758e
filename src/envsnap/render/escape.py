"""The one escaping layer: manifest text is untrusted and every renderer escapes it here.

A manifest can come from anywhere (a file someone sent, an imported record), so any string in
it may hold markup or control characters. Renderers pass such text through the function for
their output:
- `terminal_text` / `terminal_cell` for what a terminal shows: control characters (ESC, CSI,
  OSC, BEL, the C1 range), bidirectional overrides and other invisible format characters are
  shown as `\\x1b`, `\\u202e`... instead of being sent; `terminal_cell` is also a rich `Text`,
  so `[bold]` in a value is text, never markup;
- `markdown_text` (and `markdown_cell`) for markdown: one line, table pipes escaped, link and
  image syntax, emphasis and code marks escaped, HTML (`<script>`) as entities;
- `html_text` for HTML, with the same invisible characters made visible;
- `json_text` for JSON shown to people: the characters JSON leaves raw but a terminal or an
  editor acts on (C1 controls, bidi overrides, line separators) as `\\uXXXX` escapes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.text import Text

# Characters JSON does not escape but terminals and editors act on.
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
# Markdown punctuation that starts links, images, emphasis, code, tables or strikethrough.
# `_` only where it can open or close emphasis (not inside a word such as OMP_NUM_THREADS).
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_BACKTICKS = re.compile(r"`+")
_MARKDOWN_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_NEWLINES = re.compile(r"\r\n|[\r\n]")


def _visible(char: str) -> str:
    return char if char.isprintable() else char.encode("unicode_escape").decode("ascii")


def terminal_text(value: object) -> str:
    """Text with control and invisible format characters shown escaped, not sent."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(_visible(char) for char in text)


def terminal_cell(value: object, style: str = "") -> Text:
    """A rich `Text` of `terminal_text(value)`: literal, so markup in the value stays text."""
    from rich.text import Text

    return Text(terminal_text(value), style=style)


def markdown_text(value: object) -> str:
    """Text that renders as itself in markdown, on one line (so it also stays in one table
    cell): line breaks become spaces, invisible characters are shown escaped, HTML is
    entities and markdown punctuation is backslash-escaped."""
    text = terminal_text(_NEWLINES.sub(" ", str(value)))
    text = "".join(_MARKDOWN_ENTITIES.get(char, char) for char in text)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def markdown_cell(value: object) -> str:
    """Text that stays inside one markdown table cell (see `markdown_text`)."""
    return markdown_text(value)


def markdown_code(value: object) -> str:
    """A literal value (a path, a version) as an inline code span that stays in one table
    cell: HTML and link syntax are inert inside it; the fence is longer than any run of
    backticks in the value, and pipes are escaped (GFM splits cells before code spans)."""
    text = terminal_text(_NEWLINES.sub(" ", str(value))).replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_text(value: object) -> str:
    """Text safe inside an HTML element or a quoted attribute, invisible characters shown."""
    text = "\n".join(terminal_text(line) for line in str(value).split("\n"))
    return html.escape(text, quote=True)


def json_text(text: str) -> str:
    """JSON text with the characters JSON leaves raw but terminals act on escaped (still the
    same JSON value)."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def terminal_lines(text: str) -> str:
    """Multi-line text as a terminal may show it: every control or invisible character shown
    escaped (`\\x1b`), line breaks and tabs kept."""
    return "\n".join(
        "\t".join(terminal_text(part) for part in line.split("\t")) for line in text.split("\n")
    )


def write_exact(text: str, stream: TextIO, for_terminal: Callable[[str], str]) -> None:
    """Write data (a patch, an export, a manifest) to `stream`: to a file or a pipe byte for
    byte, to a terminal through `for_terminal`.

    Bytes go to the stream's buffer: a text layer may translate line ends, and `click.echo`
    strips ANSI sequences from what is not a terminal, which would change the data.
    """
    terminal = stream.isatty()
    shown = for_terminal(text) if terminal else text
    encoding = (stream.encoding or "utf-8") if terminal else "utf-8"
    # A lone surrogate (possible in a hand-edited manifest) has no bytes: it goes as an escape.
    data = shown.encode(encoding, "backslashreplace")
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream, as some hosts install: the closest it can take
        stream.write(data.decode(encoding))
        stream.flush()
        return
    buffer.write(data)
    buffer.flush()
