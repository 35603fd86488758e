"""Every NVIDIA GPU named in a real collect_env report resolves in the GPU table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap.interop.importers.collect_env import parse_report
from envsnap.manifest import gpu_table
from tests import helpers

CORPUS = helpers.FIXTURES / "collect_env"
REAL = CORPUS / "real"
REPORTS = sorted([*CORPUS.glob("*.txt"), *REAL.glob("*.txt")])
NOT_NVIDIA = ("AMD ", "Intel", "Apple")


def _gpu_names(report: Path) -> list[str]:
    lines = parse_report(report.read_text(encoding="utf-8")).blocks.get("gpus") or []
    names = []
    for line in lines:
        name = line.split(":", 1)[1].strip() if line.startswith("GPU ") else line.strip()
        name = name.split(" (UUID", 1)[0].strip()
        if name and name not in ("Could not collect", "No CUDA"):
            names.append(name)
    return names


def test_real_reports_carry_their_source() -> None:
    sources = json.loads((REAL / "sources.json").read_text(encoding="utf-8"))["sources"]
    assert sorted(sources) == sorted(p.name for p in REAL.glob("*.txt"))
    assert all(url.startswith("https://github.com/") for url in sources.values())


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.name)
def test_every_nvidia_gpu_in_a_real_report_resolves(report: Path) -> None:
    names = [n for n in _gpu_names(report) if not n.startswith(NOT_NVIDIA)]
    for name in names:
        if name == "NVIDIA H1":  # a report cut off in the middle of a name
            continue
        facts = gpu_table.facts_for_name(name)
        assert facts is not None, name
        assert facts.compute_capability and facts.architecture, name
        assert facts.sm_count, name


def test_the_corpus_names_many_gpus() -> None:
    names = {name for report in REPORTS for name in _gpu_names(report)}
    assert {"TITAN Xp", "GeForce GTX 1080 Ti", "GeForce RTX 2080 Ti", "Tesla T4"} <= names
    assert len(names) >= 20
