"""The `python` collector: the interpreter and the kind of environment it runs in."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from envsnap.capturing.collectors.python import _environment_kind, collect
from tests.helpers import capture_context


@pytest.mark.slow
def test_live_interpreter(tmp_path: Path) -> None:
    section = collect(capture_context(tmp_path, env={}))
    assert section.version == platform.python_version()
    assert section.implementation == platform.python_implementation()
    assert section.executable == sys.executable
    assert section.prefix == sys.prefix and section.base_prefix == sys.base_prefix
    assert section.in_venv == (sys.prefix != sys.base_prefix)
    assert section.hash_randomization == bool(sys.flags.hash_randomization)


def test_conda_environment_name_comes_from_the_environment(tmp_path: Path) -> None:
    section = collect(capture_context(tmp_path, env={"CONDA_DEFAULT_ENV": "train-env"}))
    assert section.conda_env == "train-env"


@pytest.mark.parametrize(
    ("files", "in_venv", "kind"),
    [
        ({}, False, "system"),
        ({"pyvenv.cfg": "home = /usr/bin\nversion = 3.11.7\n"}, True, "venv"),
        ({"pyvenv.cfg": "home = /usr/bin\nuv = 0.4.18\n"}, True, "uv"),
        ({"pyvenv.cfg": "home = /usr/bin\nvirtualenv = 20.26.0\n"}, True, "virtualenv"),
        ({"conda-meta/history": ""}, False, "conda"),
        ({}, True, "venv"),
    ],
)
def test_environment_kind(tmp_path: Path, files: dict[str, str], in_venv: bool, kind: str) -> None:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert _environment_kind(tmp_path, in_venv) == kind
