"""Sealed documents serialise in a fresh interpreter, where no model class is built yet.

Model classes build their validators and serializers on first use (`defer_build`). Before
pydantic 2.14, serialising an instance of a class whose own serializer was never built (its
instances came from a parent model's validator) raised "'MockValSer' object cannot be converted
to 'SchemaSerializer'", so `check` and `report` crashed on every manifest. Each test runs in a
new process, since earlier tests in this one have built most classes already; the
lowest-versions CI job runs them at pydantic's floor.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.helpers import FIXTURES, CliResult

FULL = FIXTURES / "manifests" / "full.json"


def _fresh_python(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def test_a_manifest_read_in_a_fresh_process_is_written_back_unchanged() -> None:
    out = _fresh_python(
        "import sys; from envsnap.manifest.model import load; print(load(sys.argv[1]).to_json())",
        str(FULL),
    )
    assert json.loads(out) == json.loads(FULL.read_text(encoding="utf-8"))


def test_a_capture_in_a_fresh_process_is_sealed_and_reads_back() -> None:
    out = _fresh_python(
        "from envsnap.capturing.run import capture_process\n"
        "print(capture_process(only=['python', 'env']).to_json())"
    )
    document = json.loads(out)
    assert document["python"]["version"]
    verified = _fresh_python(
        "import json, sys\n"
        "from envsnap.manifest.model import manifest_from_document\n"
        "manifest = manifest_from_document(json.loads(sys.argv[1]), 'captured')\n"
        "print(manifest.compute_digest())",
        out,
    )
    assert verified.strip() == document["digest"]


def test_a_cluster_manifest_built_in_a_fresh_process_serialises() -> None:
    out = _fresh_python(
        "import sys; from envsnap.diff.cluster.io import assemble_files\n"
        "print(assemble_files([sys.argv[1], sys.argv[1]]).to_json())",
        str(FULL),
    )
    cluster = json.loads(out)
    assert cluster["kind"] == "envsnap-cluster"
    assert [rank["status"] for rank in cluster["ranks"]] == ["ok", "ok"]


@pytest.mark.parametrize(
    "command", [["check"], ["report", "--format", "markdown"]], ids=["check", "report"]
)
def test_check_and_report_read_a_manifest(
    run_cli_process: Callable[..., CliResult], command: list[str]
) -> None:
    result = run_cli_process(*command, str(FULL))
    assert result.code == 0, result.err
    assert result.err == ""
    assert "no lock file found" in result.out
