"""The generated CLI reference shows the defaults commands receive, never click's sentinel.

The page's `::: mkdocs-click` block is rendered as the docs build renders it: the MkDocs hook's
`on_config` first, then mkdocs-click with the options written in the page. It runs in a child
process because the hook changes the CLI's option objects, as it does in the docs build.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs_click")

REPO = Path(__file__).resolve().parents[3]
PAGE = REPO / "docs" / "reference" / "cli.md"
RENDER = """
import importlib.util, json, sys
from mkdocs_click._extension import replace_command_docs

spec = importlib.util.spec_from_file_location("hooks", sys.argv[1])
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)
if sys.argv[3] == "hook":
    hooks.on_config({})
else:  # only the imports the hook makes, to show what mkdocs-click prints without it
    from envsnap.cli import COMMAND_MODULES
    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(f"envsnap.cli.{module}")
print("\\n".join(replace_command_docs(**json.loads(sys.argv[2]))))
"""


def _block_options() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    block = text[text.index("::: mkdocs-click") :].split("\n\n", 1)[0]
    return dict(re.findall(r"^\s+:(\w+): (.+)$", block, re.MULTILINE))


def _render(mode: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            RENDER,
            str(REPO / "tools" / "mkdocs_hooks.py"),
            json.dumps(_block_options()),
            mode,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_reference_shows_no_sentinel_and_the_real_defaults() -> None:
    markdown = _render("hook")
    assert "| `--fail-on` |" in markdown  # the tables were generated
    assert "Sentinel." not in markdown
    # A flag's default is what the command receives.
    assert re.search(r"\| `--strict` \| boolean \| [^|]+ \| `False` \|", markdown)


def test_without_the_hook_the_sentinel_would_show() -> None:
    # Guards the test above: if click stops using a sentinel, this says so.
    if "Sentinel." not in _render("plain"):
        pytest.skip("this click version shows no sentinel default")
