"""A misspelt keyword to `envsnap.capture` fails at the call, naming the keyword to use."""

from __future__ import annotations

import pytest

import envsnap


def test_misspelt_keyword_names_the_closest_valid_one() -> None:
    with pytest.raises(TypeError) as raised:
        envsnap.capture(modle=object())
    message = str(raised.value)
    assert "'modle'" in message
    assert "did you mean 'model'?" in message


def test_keyword_with_no_close_match_lists_the_valid_ones() -> None:
    with pytest.raises(TypeError) as raised:
        envsnap.capture(zzzz=1)
    message = str(raised.value)
    assert "'zzzz'" in message
    assert "valid keywords: model, optimizer" in message
