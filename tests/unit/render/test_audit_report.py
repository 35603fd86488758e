"""`envsnap report`: a self-contained audit document, rendered by a real headless browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import FIXTURES

MANIFEST = FIXTURES / "manifests" / "full.json"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Flags that keep Chromium offline and quiet on a machine without a network or a display.
OFFLINE_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def against(tmp_path: Path) -> Path:
    """The fixture with one result-relevant change: a different global batch."""
    from envsnap.manifest.canonical import digest_of, pretty_text

    document = json.loads(MANIFEST.read_text())
    document["parallel"]["grad_accum_steps"] = (
        document["parallel"].get("grad_accum_steps") or 1
    ) * 2
    document["parallel"]["global_batch"] = (document["parallel"].get("global_batch") or 1) * 2
    document["digest"] = digest_of(document)
    path = tmp_path / "other.json"
    path.write_text(pretty_text(document))
    return path


def test_html_report_is_self_contained_and_complete(tmp_path: Path, run_cli, against: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "audit.html"
    result = run_cli("report", str(MANIFEST), "--against", str(against), "-o", str(out))
    assert result.code == 0, result.err
    html = out.read_text()
    assert "<script" not in html.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "external asset"
    assert "Reproducibility check" in html
    assert "Differences against" in html
    assert "global_batch" in html
    assert "What was captured" in html
    digest = json.loads(MANIFEST.read_text())["digest"]
    assert digest in html
    assert f"envsnap verify {MANIFEST}" in html


def test_markdown_report_has_the_same_parts(run_cli, against: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("report", str(MANIFEST), "--against", str(against), "--format", "markdown")
    assert result.code == 0, result.err
    for heading in (
        "## Run conditions",
        "## Reproducibility check",
        "## Differences against",
        "## What was captured",
        "## Integrity",
    ):
        assert heading in result.out


def test_report_of_a_missing_manifest_is_one_line_exit_2(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("report", str(tmp_path / "absent.json"))
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package: chromium)")
def test_report_renders_in_headless_chromium(tmp_path: Path, run_cli, against: Path) -> None:  # type: ignore[no-untyped-def]
    html = tmp_path / "audit.html"
    assert run_cli("report", str(MANIFEST), "--against", str(against), "-o", str(html)).code == 0
    profile = tmp_path / "profile"
    common = [CHROMIUM, *OFFLINE_FLAGS, f"--user-data-dir={profile}"]
    dom = subprocess.run(
        [*common, "--dump-dom", html.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "Reproducibility check" in dom
    assert "global_batch" in dom
    screenshot = tmp_path / "audit.png"
    subprocess.run(
        [*common, f"--screenshot={screenshot}", "--window-size=1280,1600", html.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    data = screenshot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 20_000, "a blank page compresses to a few KB"
