"""Every registered collector honours the contract, whatever section it fills."""

from __future__ import annotations

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
