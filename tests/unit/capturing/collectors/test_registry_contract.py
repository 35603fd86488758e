"""Every registered collector honours the contract, whatever section it fills."""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envsnap.capturing.collectors import COLLECTORS
from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.manifest.model import Manifest
from envsnap.manifest.records import SECTION_RECORDS
from envsnap.manifest.sections import SECTION_MODELS
from tests.helpers import assert_valid_section


def test_registry_keys_match_collector_names_and_manifest_fields() -> None:
    assert list(COLLECTORS) == list(SECTION_MODELS) == list(SECTION_RECORDS)
    for name, collector in COLLECTORS.items():
        assert collector.name == name
        assert name in Manifest.model_fields
        assert collector.timeout_s > 0


@pytest.mark.parametrize("name", list(COLLECTORS))
def test_collector_on_a_bare_context_returns_its_section_or_declines(
    name: str, tmp_path: Path
) -> None:
    """An empty environment and an empty directory: a section or an expected absence."""
    context = CaptureContext(env={}, cwd=tmp_path, deadline=time.monotonic() + 30)
    try:
        section = COLLECTORS[name].collect(context)
    except CollectorUnavailable as exc:
        assert str(exc), "a skipped collector must say why"
        return
    assert isinstance(section, SECTION_RECORDS[name])
    assert_valid_section(name, section)


@pytest.mark.slow
def test_a_capture_imports_only_the_collectors_it_runs(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from envsnap.capturing.run import capture_document\n"
        "document = capture_document(only=['python', 'env'])\n"
        "loaded = sorted(m.rsplit('.', 1)[1] for m in sys.modules\n"
        "                if m.startswith('envsnap.capturing.collectors.'))\n"
        "print(document['collectors']['python']['status'], loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    status, loaded = done.stdout.split(" ", 1)
    assert status == "ok"
    # env hashes GPU UUIDs with gpu's helper; torch_runtime settles which torch a capture sees.
    not_run = set(COLLECTORS) - {"python", "env", "gpu", "torch"}
    assert not_run.isdisjoint(ast.literal_eval(loaded)), loaded


def test_the_registry_is_a_read_only_mapping_in_manifest_order() -> None:
    sections = [name for name in Manifest.model_fields if name in SECTION_MODELS]
    assert list(COLLECTORS) == sections
    with pytest.raises(KeyError):
        COLLECTORS["nope"]
    assert COLLECTORS["env"] is COLLECTORS["env"]
