"""The capture mechanism: isolation, time limits, the total budget, selection, redaction."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from envsnap.capturing.collectors import COLLECTORS
from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.run import (
    build_document,
    build_manifest,
    run_collectors,
    select_collectors,
    validated,
)
from envsnap.errors import EnvsnapError
from envsnap.manifest.model import Manifest, manifest_from_document
from envsnap.manifest.records import EnvSection, PythonSection, Section
from envsnap.manifest.sealed import verify_document
from tests.helpers import capture_context


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown so collectors that hang on purpose end with the test."""
    event = threading.Event()
    yield event
    event.set()


def _env_section(context: CaptureContext) -> Section:
    return EnvSection(variables={}, prefixes=[], names=[])


def _raises(context: CaptureContext) -> Section:
    raise ValueError("boom at https://alice:pw-in-error@example.com/x")


def _unavailable(context: CaptureContext) -> Section:
    raise CollectorUnavailable("no such device here")


def _exits(context: CaptureContext) -> Section:
    raise SystemExit(3)


def _wrong_type(context: CaptureContext) -> Section:
    return "not a section"  # type: ignore[return-value]


def _registry(**collect: Callable[[CaptureContext], Section]) -> dict[str, Collector]:
    return {name: Collector(name=name, collect=fn, timeout_s=5.0) for name, fn in collect.items()}


def _valid(manifest: Manifest) -> Manifest:
    """Round-trip through the document form: the manifest a reader would load."""
    document = manifest.to_document()
    assert verify_document(document)[0]
    return manifest_from_document(document, "captured")


def test_a_collector_that_raises_costs_only_its_section(tmp_path: Path) -> None:
    registry = _registry(env=_env_section, gpu=_raises, seeds=_unavailable, torch=_exits)
    manifest = _valid(
        build_manifest(names=list(registry), context=capture_context(tmp_path), registry=registry)
    )
    records = manifest.collectors
    assert records["env"].status == "ok" and manifest.env is not None
    assert records["gpu"].status == "error" and manifest.gpu is None
    assert records["gpu"].reason is not None
    assert records["gpu"].reason.startswith("ValueError: boom at https://<redacted>@example.com")
    assert (records["seeds"].status, records["seeds"].reason) == ("skipped", "no such device here")
    assert records["torch"].status == "error" and records["torch"].reason == "SystemExit: 3"
    assert manifest.tool.collectors_requested == ["env", "gpu", "seeds", "torch"]
    assert manifest.tool.collectors_run == ["env", "seeds"]


def test_a_collector_returning_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    registry = _registry(gpu=_wrong_type, data=_env_section)
    manifest = _valid(
        build_manifest(names=list(registry), context=capture_context(tmp_path), registry=registry)
    )
    assert manifest.collectors["gpu"].status == "error"
    assert manifest.collectors["gpu"].reason == "returned str, expected GpuSection"
    assert manifest.collectors["data"].reason == "returned EnvSection, expected DataSection"
    assert manifest.gpu is None and manifest.data is None


def test_a_hung_collector_is_abandoned_at_its_own_limit(
    tmp_path: Path, release: threading.Event
) -> None:
    registry = {
        "env": Collector(name="env", collect=_env_section),
        # Waits for an event nobody sets: only the limit can end this capture.
        "gpu": Collector(
            name="gpu", collect=lambda ctx: release.wait() and _env_section(ctx), timeout_s=0.3
        ),
    }
    manifest = _valid(
        build_manifest(names=list(registry), context=capture_context(tmp_path), registry=registry)
    )
    assert manifest.collectors["gpu"].status == "error"
    assert manifest.collectors["gpu"].reason == "timed out after 0.3 s (abandoned)"
    assert manifest.collectors["env"].status == "ok"
    assert manifest.gpu is None


def test_the_total_budget_bounds_collectors_with_long_limits(
    tmp_path: Path, release: threading.Event
) -> None:
    registry = {
        name: Collector(
            name=name, collect=lambda ctx: release.wait() and _env_section(ctx), timeout_s=600
        )
        for name in ("gpu", "torch")
    }
    manifest = build_manifest(
        names=list(registry), context=capture_context(tmp_path, budget_s=0.5), registry=registry
    )
    for name in registry:
        assert manifest.collectors[name].status == "error"
        assert manifest.collectors[name].reason == "timed out after 0.5 s (abandoned)"


def test_a_subprocess_is_cut_off_by_the_capture_deadline(tmp_path: Path) -> None:
    """CaptureContext.run bounds a real child process by what is left of the budget."""

    def sleeper(context: CaptureContext) -> Section:
        context.run(["sleep", "60"], timeout=120)
        return _env_section(context)

    registry = _registry(gpu=sleeper)
    manifest = build_manifest(
        names=["gpu"], context=capture_context(tmp_path, budget_s=1.0), registry=registry
    )
    record = manifest.collectors["gpu"]
    assert record.status == "error"
    assert record.reason is not None
    assert "TimeoutExpired" in record.reason or "timed out" in record.reason


def test_every_real_collector_gives_a_record(tmp_path: Path) -> None:
    sections, records = run_collectors(list(COLLECTORS), capture_context(tmp_path))
    assert list(records) == list(COLLECTORS)
    for name, record in records.items():
        assert (sections[name] is not None) == (record.status == "ok")
        assert record.status == "ok" or record.reason


def test_select_collectors_only_skip_and_unknown() -> None:
    assert select_collectors() == list(COLLECTORS)
    assert select_collectors(only=["env", "code"]) == ["code", "env"]
    assert select_collectors(skip=["code", "packages"]) == [
        name for name in COLLECTORS if name not in ("code", "packages")
    ]
    assert select_collectors(only=["env", "code"], skip=["code"]) == ["env"]
    with pytest.raises(EnvsnapError, match=r"unknown collector 'nope' \(known: code, "):
        select_collectors(only=["nope"])
    with pytest.raises(EnvsnapError, match="unknown collector 'gpus'"):
        select_collectors(skip=["gpus"])


def test_argv_label_and_extra_are_redacted(tmp_path: Path) -> None:
    token = "hf_" + "Q7" * 17
    manifest = build_manifest(
        names=["env"],
        context=capture_context(tmp_path, env={"HF_TOKEN": "plain-secret-1"}),
        label=f"run with {token}",
        argv=["train.py", "--hf-token", "plain-secret-2", "--lr", "0.1"],
        extra={"api_key": "plain-secret-3", "note": f"uses {token}", "steps": 10},
    )
    text = manifest.to_json()
    for secret in (token, "plain-secret-1", "plain-secret-2", "plain-secret-3"):
        assert secret not in text
    assert manifest.run.argv == ["train.py", "--hf-token", "<redacted>", "--lr", "0.1"]
    assert manifest.extra["steps"] == 10
    assert manifest.env is not None and manifest.env.redacted == ["HF_TOKEN"]


def test_final_pass_catches_a_token_a_collector_let_through(tmp_path: Path) -> None:
    token = "ghp_" + "x1" * 18

    def leaky(context: CaptureContext) -> Section:
        return EnvSection(variables={"TORCH_X": f"value {token}"}, prefixes=[], names=[])

    def leaky_unknown(context: CaptureContext) -> Section:
        return EnvSection(variables={}, prefixes=[], names=[], unknown={"x": f"failed: {token}"})

    manifest = build_manifest(
        names=["env"], context=capture_context(tmp_path), registry=_registry(env=leaky)
    )
    assert token not in manifest.to_json()
    assert manifest.env is not None and manifest.env.variables["TORCH_X"] == "value <redacted>"
    assert verify_document(manifest.to_document())[0]
    other = build_manifest(
        names=["env"], context=capture_context(tmp_path), registry=_registry(env=leaky_unknown)
    )
    assert token not in other.to_json()


def test_undecodable_bytes_in_env_argv_and_cwd_become_escapes(tmp_path: Path) -> None:
    """Python keeps non-UTF-8 bytes as lone surrogates; the manifest must still be UTF-8 JSON."""
    import os

    odd = os.fsdecode(b"caf\xe9")
    cwd = tmp_path / odd
    cwd.mkdir()
    manifest = build_manifest(
        names=["env"],
        context=capture_context(cwd, env={"TORCH_X": odd, f"NCCL_{odd}": "1"}),
        argv=["train.py", odd],
        label=odd,
    )
    assert manifest.env is not None
    assert manifest.env.variables == {"TORCH_X": "caf\\xe9", "NCCL_caf\\xe9": "1"}
    assert manifest.run.argv == ["train.py", "caf\\xe9"]
    assert manifest.run.cwd.endswith("caf\\xe9") and manifest.run.label == "caf\\xe9"
    assert manifest.canonical().decode("utf-8")
    assert verify_document(manifest.to_document())[0]


def test_the_capture_budget_grows_by_the_data_budget_only_when_there_is_data() -> None:
    from envsnap.capturing.config import CaptureConfig, with_declared
    from envsnap.capturing.declared import DEFAULT_DATA_BUDGET_S
    from envsnap.capturing.run import capture_budget_s

    config = CaptureConfig().with_overrides(budget_s=10.0)
    assert capture_budget_s(config) == 10.0
    assert capture_budget_s(with_declared(config, "data", paths=["x"], budget_s=30.0)) == 40.0
    assert capture_budget_s(config, {"data": {"train": "x"}}) == 10.0 + DEFAULT_DATA_BUDGET_S


def test_capture_process_applies_the_data_budget_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Callers (diff against this environment, check without a file) pass the config only."""
    import time

    from envsnap.capturing import run
    from envsnap.capturing.config import CaptureConfig, with_declared

    deadlines: list[float] = []
    original = CaptureContext.from_process

    def recording(**kwargs: object) -> CaptureContext:
        deadlines.append(float(kwargs["deadline"]))  # type: ignore[arg-type]
        return original(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run.CaptureContext, "from_process", recording)
    config = with_declared(CaptureConfig().with_overrides(budget_s=5.0), "data", budget_s=500.0)
    config = with_declared(config, "data", paths=["missing-on-purpose"])
    before = time.monotonic()
    run.capture_process(config=config, only=["python"])
    assert deadlines and deadlines[0] - before >= 500.0


def test_a_value_that_is_not_json_costs_only_its_collector(tmp_path: Path) -> None:
    def foreign(context: CaptureContext) -> Section:
        return EnvSection(variables={"TORCH_X": object()}, prefixes=[], names=[])  # type: ignore[dict-item]

    registry = _registry(env=foreign, gpu=_env_section)
    document = build_document(names=["env"], context=capture_context(tmp_path), registry=registry)
    assert document["env"] is None
    assert document["collectors"]["env"]["status"] == "error"
    assert document["collectors"]["env"]["reason"] == "TypeError: object is not a JSON value"
    assert verify_document(document)[0]


def test_a_section_the_schema_refuses_costs_only_itself_when_validated(tmp_path: Path) -> None:
    """Captures trust their records; `validated` (the in-job API, capture --strict) checks them,
    and drops a section the schema refuses instead of failing the capture."""

    def refused(context: CaptureContext) -> Section:
        return EnvSection(variables={"TORCH_X": 3}, prefixes=[], names=[])  # type: ignore[dict-item]

    registry = _registry(env=refused, python=_python_section)
    document = build_document(
        names=["env", "python"], context=capture_context(tmp_path), registry=registry
    )
    assert document["env"] == {
        "unknown": {},
        "variables": {"TORCH_X": 3},
        "prefixes": [],
        "names": [],
        "redacted": [],
    }
    manifest = validated(document)
    assert manifest.env is None and manifest.python is not None
    record = manifest.collectors["env"]
    assert record.status == "error"
    assert record.reason == "invalid section: Input should be a valid string"
    assert manifest.tool.collectors_run == ["python"]
    assert document == manifest.to_document()
    assert verify_document(document)[0]


def _python_section(context: CaptureContext) -> Section:
    return PythonSection(
        version="3.11.7",
        implementation="CPython",
        compiler=None,
        executable="/usr/bin/python3",
        prefix="/usr",
        base_prefix="/usr",
        environment="system",
        in_venv=False,
        conda_env=None,
        hash_randomization=True,
        gil_disabled=None,
    )


@pytest.mark.slow
def test_the_cli_capture_imports_neither_pydantic_nor_torch(tmp_path: Path) -> None:
    """What keeps `envsnap capture` at a fraction of collect_env: no model classes to build."""
    script = (
        "import sys\n"
        "from envsnap.cli import main\n"
        "try:\n"
        f"    main(['capture', '-o', {str(tmp_path / 'run.json')!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('pydantic', 'torch', 'numpy') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "run.json").is_file()


def test_a_value_the_model_coerces_is_sealed_as_the_model_writes_it(tmp_path: Path) -> None:
    """An int put in a float field after the record was built: what validated() returns, and
    the document it leaves, verify against their digest."""

    def env_only(context: CaptureContext) -> Section:
        return EnvSection(variables={}, prefixes=[], names=[])

    registry = _registry(env=env_only)
    document = build_document(names=["env"], context=capture_context(tmp_path), registry=registry)
    document["collectors"]["env"]["duration_ms"] = 3  # a float field holding an int
    manifest = validated(document)
    assert isinstance(document["collectors"]["env"]["duration_ms"], float)
    assert document == manifest.to_document()
    assert verify_document(document)[0]
    assert verify_document(manifest.to_document())[0]
