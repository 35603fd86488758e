"""The escaping layer every renderer uses for manifest text."""

from __future__ import annotations

from envsnap.render.escape import html_text, markdown_cell, terminal_text


def test_html_text_escapes_markup_and_quotes() -> None:
    assert html_text("<b a='1'>&</b>") == "&lt;b a=&#x27;1&#x27;&gt;&amp;&lt;/b&gt;"


def test_markdown_cell_stays_in_one_cell() -> None:
    assert markdown_cell("a|b\nc") == "a\\|b c"


def test_terminal_text_shows_control_characters_instead_of_sending_them() -> None:
    assert terminal_text("ok\x1b[31mred") == "ok\\x1b[31mred"
