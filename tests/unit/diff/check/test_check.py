"""`envsnap check`: each finding fires on a manifest built to trigger it, and nothing fires on a
clean one. The clean manifests are real captures (a real git repository, real torch objects, a
real data file); only NVML is faked, with an A100's documented values."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

import envsnap
from envsnap.capturing.api import capture
from envsnap.diff.check import CHECK_RULES, check_document
from envsnap.diff.check.catalog import RULES_BY_ID
from envsnap.diff.report import Report, Target
from envsnap.manifest.model import manifest_from_document
from tests.fixtures.nvml.fake_nvml import FakeNvml
from tests.helpers import git
from tests.helpers.manifests import FULL

Doc = dict[str, Any]
SKIPPED_HERE = {"collectors.tokenizer", "collectors.templates"}  # nothing declared for them


def _loader(seeds: Any, *, seeded: bool) -> DataLoader[Any]:
    return DataLoader(
        TensorDataset(torch.zeros(8, 2)),
        batch_size=2,
        num_workers=2,
        generator=seeds.generator() if seeded else None,
        worker_init_fn=seeds.worker_init_fn() if seeded else None,
    )


def _capture(root: Path, *, gpu: bool, only: list[str] | None = None, **inputs: Any) -> Doc:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("PYTHONHASHSEED", "0")
        if gpu:
            patch.setitem(sys.modules, "pynvml", FakeNvml(["a100"]))
        else:
            patch.setitem(sys.modules, "pynvml", None)  # no NVML binding: no GPU known
        with envsnap.deterministic(42, warn_only=True) as seeds:
            model = torch.nn.Linear(2, 1)
            manifest = capture(
                seeds=seeds,
                model=model,
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                dataloader=_loader(seeds, seeded=inputs.pop("seeded_loader", True)),
                data={"train": "data/train.txt"},
                parallel={"grad_accum_steps": 1},
                only=only,
                **inputs,
            )
    return manifest.to_document()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("check") / "project"
    (root / "data").mkdir(parents=True)
    (root / "data" / "train.txt").write_text("the quick brown fox\n")
    (root / "train.py").write_text("print('train')\n")
    (root / "requirements.txt").write_text("torch==2.13.0\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture(scope="module")
def gpu_clean(repo: Path) -> Doc:
    return _capture(repo, gpu=True)


@pytest.fixture(scope="module")
def cpu_clean(repo: Path) -> Doc:
    return _capture(repo, gpu=False)


@pytest.fixture(scope="module")
def dirty_code(repo: Path) -> Iterator[Doc]:
    """The code section of a real capture after editing a tracked file and adding one."""
    tracked, extra = repo / "train.py", repo / "notes.txt"
    original = tracked.read_text()
    tracked.write_text(original + "print('changed')\n")
    extra.write_text("scratch\n")
    try:
        yield _capture(repo, gpu=False, only=["code"])["code"]
    finally:
        tracked.write_text(original)
        extra.unlink()


def _set(doc: Doc, dotted: str, value: Any) -> Doc:
    """A copy of `doc` with one value replaced (checked to still be a valid manifest)."""
    changed = copy.deepcopy(doc)
    *parents, last = dotted.split(".")
    node = changed
    for part in parents:
        node = node[part]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    manifest_from_document(changed, "test")
    return changed


_DELETE = object()


def _hits(report: Report) -> list[tuple[str, str, str]]:
    return [(f.rule, f.path, f.severity) for f in report.findings]


def _only_rule(report: Report, rule: str) -> list[tuple[str, str, str]]:
    return [hit for hit in _hits(report) if hit[0] == rule]


# --- nothing spurious ----------------------------------------------------------------------
@pytest.mark.parametrize("target", ["bitwise", "close", "conclusion"])
@pytest.mark.parametrize("which", ["gpu_clean", "cpu_clean"])
def test_clean_manifests_give_nothing_but_the_honest_infos(
    which: str, target: Target, request: pytest.FixtureRequest
) -> None:
    doc = request.getfixturevalue(which)
    report = check_document(doc, target)
    expected = SKIPPED_HERE | ({"collectors.gpu"} if which == "cpu_clean" else set())
    assert {(f.path, f.severity) for f in report.findings} == {(p, "info") for p in expected}
    assert report.kind == "check" and report.target == target
    assert "nothing recorded" in report.summary.verdict or "only informational" in (
        report.summary.verdict
    )


def test_the_clean_gpu_capture_is_what_the_lints_think_it_is(gpu_clean: Doc) -> None:
    # Guards the fixture: a GPU is known, determinism is on, the loader is seeded.
    assert gpu_clean["gpu"]["devices"]["0"]["arch"] == "Ampere"
    assert gpu_clean["torch"]["deterministic"]["algorithms"] is True
    assert gpu_clean["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert gpu_clean["parallel"]["dataloader"]["generator_seed"] is not None
    assert gpu_clean["seeds"]["master_seed"] == 42
    assert gpu_clean["data"]["items"]["train"]["root"]


# --- each finding --------------------------------------------------------------------------
def test_no_seed(gpu_clean: Doc) -> None:
    doc = copy.deepcopy(gpu_clean)
    doc["seeds"].update(
        declared_by=None, master_seed=None, rank=None, derived={}, seeded=[], level=None, flags=None
    )
    report = check_document(_set(doc, "seeds.torch_initial_seed", None), "bitwise")
    assert _only_rule(report, "check.no-seed") == [("check.no-seed", "seeds.master_seed", "high")]
    # torch's initial seed observed but not declared: said so, at lower severity.
    observed = check_document(doc, "bitwise")
    assert _only_rule(observed, "check.no-seed") == [
        ("check.no-seed", "seeds.torch_initial_seed", "medium")
    ]
    # From outside the job nothing can be known about seeds: info.
    live = check_document(doc, "bitwise", live=True)
    assert _only_rule(live, "check.no-seed") == [("check.no-seed", "seeds.master_seed", "info")]


def test_pythonhashseed_unset(gpu_clean: Doc) -> None:
    doc = _set(gpu_clean, "seeds.pythonhashseed", None)
    doc = _set(doc, "env.variables.PYTHONHASHSEED", _DELETE)
    assert _only_rule(check_document(doc, "bitwise"), "check.pythonhashseed") == [
        ("check.pythonhashseed", "seeds.pythonhashseed", "low")
    ]


def test_recorded_determinism_warning(gpu_clean: Doc) -> None:
    doc = _set(gpu_clean, "seeds.warnings", ["CUDA is already initialised: ..."])
    assert _only_rule(check_document(doc, "bitwise"), "check.determinism-warning") == [
        ("check.determinism-warning", "seeds.warnings", "medium")
    ]


def test_cudnn_benchmark_while_determinism_asked(gpu_clean: Doc, cpu_clean: Doc) -> None:
    rule = "check.cudnn-benchmark"
    doc = _set(gpu_clean, "torch.cudnn.benchmark", True)
    assert _only_rule(check_document(doc, "bitwise"), rule) == [
        (rule, "torch.cudnn.benchmark", "high")
    ]
    # Without CUDA cuDNN never runs: nothing to say.
    assert _only_rule(check_document(_set(cpu_clean, "torch.cudnn.benchmark", True)), rule) == []
    # Whether CUDA was used is unknown (CUDA build, GPU section missing): info only.
    unknown = _set(_set(cpu_clean, "torch.cudnn.benchmark", True), "torch.cuda_built", True)
    unknown = _set(unknown, "cuda_stack.torch_build", "cu121")
    assert _only_rule(check_document(unknown, "bitwise"), rule) == [
        (rule, "torch.cudnn.benchmark", "info")
    ]


def test_not_deterministic_on_cuda(gpu_clean: Doc) -> None:
    doc = _set(gpu_clean, "torch.deterministic.algorithms", False)
    doc = _set(doc, "torch.cudnn.deterministic", False)
    doc = _set(doc, "seeds.level", "seeded")
    assert _only_rule(check_document(doc, "bitwise"), "check.not-deterministic") == [
        ("check.not-deterministic", "torch.deterministic.algorithms", "high")
    ]
    assert _only_rule(check_document(doc, "close"), "check.not-deterministic")[0][2] == "info"


def test_deterministic_without_cublas_workspace_config(gpu_clean: Doc, cpu_clean: Doc) -> None:
    rule = "check.cublas-workspace"
    doc = _set(gpu_clean, "env.variables.CUBLAS_WORKSPACE_CONFIG", _DELETE)
    assert _only_rule(check_document(doc, "bitwise"), rule) == [
        (rule, "env.variables.CUBLAS_WORKSPACE_CONFIG", "medium")
    ]
    cpu = _set(cpu_clean, "env.variables.CUBLAS_WORKSPACE_CONFIG", _DELETE)
    assert _only_rule(check_document(cpu, "bitwise"), rule) == []  # cuBLAS needs CUDA


def test_tf32_effective_on_ampere(gpu_clean: Doc) -> None:
    rule = "check.tf32"
    doc = _set(gpu_clean, "torch.effective.matmul_fp32.tf32", "yes")
    doc = _set(doc, "torch.effective.matmul_fp32.reason", "allow_tf32=True on CC 8.0")
    assert _only_rule(check_document(doc, "bitwise"), rule) == [
        (rule, "torch.effective.matmul_fp32.tf32", "high")
    ]
    assert _only_rule(check_document(doc, "close"), rule)[0][2] == "low"
    unknown = _set(gpu_clean, "torch.effective.conv_fp32.tf32", "unknown")
    assert _only_rule(check_document(unknown, "bitwise"), rule) == [
        (rule, "torch.effective.conv_fp32.tf32", "info")
    ]


def test_dirty_tree_and_untracked_files(cpu_clean: Doc, dirty_code: Doc) -> None:
    assert dirty_code["dirty"] is True and dirty_code["untracked_count"] == 1
    report = check_document(_set(cpu_clean, "code", dirty_code), "bitwise")
    assert _only_rule(report, "check.dirty-tree") == [("check.dirty-tree", "code.dirty", "high")]
    assert _only_rule(report, "check.untracked-files") == [
        ("check.untracked-files", "code.untracked_count", "medium")
    ]


def test_untracked_files_alone_are_not_a_dirty_tree(
    cpu_clean: Doc, make_repo: Callable[..., Path]
) -> None:
    repo = make_repo()  # its own repository: the module's one is edited by dirty_code
    (repo / "notes.txt").write_text("scratch\n")
    code = _capture(repo, gpu=False, only=["code"])["code"]
    assert code["dirty"] is False and code["untracked_count"] == 1
    report = check_document(_set(cpu_clean, "code", code), "bitwise")
    assert _only_rule(report, "check.dirty-tree") == []
    assert _only_rule(report, "check.untracked-files") == [
        ("check.untracked-files", "code.untracked_count", "medium")
    ]


def test_data_used_without_a_digest(cpu_clean: Doc) -> None:
    rule = "check.data-no-digest"
    no_data = _set(_set(cpu_clean, "data", None), "collectors.data.status", "skipped")
    report = check_document(no_data, "bitwise")
    assert _only_rule(report, rule) == [(rule, "data.items", "high")]
    missing = _set(cpu_clean, "data.items.train.root", None)
    assert _only_rule(check_document(missing, "bitwise"), rule) == [
        (rule, "data.items.train.root", "high")
    ]
    versioned = copy.deepcopy(cpu_clean)
    versioned["data"]["items"]["hub"] = {"kind": "declared", "versions": {"hf_revision": "abc"}}
    manifest_from_document(versioned, "test")
    assert _only_rule(check_document(versioned, "bitwise"), rule) == [
        (rule, "data.items.hub.root", "medium")
    ]


def test_dataloader_workers_without_generator(repo: Path) -> None:
    doc = _capture(repo, gpu=False, seeded_loader=False)
    assert _only_rule(check_document(doc, "bitwise"), "check.dataloader-worker-seeding") == [
        ("check.dataloader-worker-seeding", "parallel.dataloader", "medium")
    ]


def test_grad_accumulation_with_old_transformers(cpu_clean: Doc) -> None:
    rule = "check.ga-transformers"
    package = {"name": "transformers", "version": "4.45.2", "installer": "pip", "source": "index"}
    old = _set(cpu_clean, "packages.installed.transformers", package)
    assert _only_rule(check_document(old), rule) == []  # accumulation 1 is unaffected
    accumulating = _set(old, "parallel.grad_accum_steps", 4)
    assert _only_rule(check_document(accumulating, "conclusion"), rule) == [
        (rule, "packages.installed.transformers.version", "critical")
    ]
    unknown = _set(old, "parallel.grad_accum_steps", None)
    assert _only_rule(check_document(unknown), rule) == [
        (rule, "parallel.grad_accum_steps", "info")
    ]
    fixed = _set(accumulating, "packages.installed.transformers.version", "4.46.0")
    assert _only_rule(check_document(fixed), rule) == []


def test_no_lock_file(cpu_clean: Doc) -> None:
    doc = _set(cpu_clean, "packages.lock_files", [])
    assert _only_rule(check_document(doc), "check.no-lock-file") == [
        ("check.no-lock-file", "packages.lock_files", "medium")
    ]


def test_section_not_captured(cpu_clean: Doc) -> None:
    rule = "check.section-missing"
    failed = _set(
        cpu_clean, "collectors.system", {"status": "error", "reason": "boom", "duration_ms": 1.0}
    )
    failed = _set(failed, "system", None)
    assert (rule, "collectors.system", "low") in _hits(check_document(failed))
    not_requested = copy.deepcopy(cpu_clean)
    del not_requested["collectors"]["system"]
    not_requested["system"] = None
    assert (rule, "collectors.system", "info") in _hits(check_document(not_requested))


def test_a_probe_op_whose_repeat_gave_other_bits_is_measured_nondeterminism(
    cpu_clean: Doc,
) -> None:
    rule = "check.probe-nondeterministic"
    ops = cpu_clean["probe"]["devices"]["cpu"]["ops"]
    assert ops and all(op["repeat_equal"] is not False for op in ops.values())  # real capture
    doc = _set(cpu_clean, "probe.devices.cpu.ops.index_add.repeat_equal", False)
    report = check_document(doc, "bitwise")
    assert _only_rule(report, rule) == [
        (rule, "probe.devices.cpu.ops.index_add.repeat_equal", "high")
    ]
    finding = next(f for f in report.findings if f.rule == rule)
    assert "index_add (atomics) on cpu" in finding.title
    assert _only_rule(check_document(doc, "close"), rule)[0][2] == "low"


# --- catalog invariants --------------------------------------------------------------------
def test_every_rule_has_a_fix_why_and_unique_id() -> None:
    assert len(RULES_BY_ID) == len(CHECK_RULES)
    for rule in CHECK_RULES:
        assert rule.id.startswith("check.") and rule.why and rule.fix and rule.title


def test_findings_are_ranked_most_severe_first(gpu_clean: Doc) -> None:
    doc = _set(gpu_clean, "packages.lock_files", [])
    doc = _set(doc, "torch.effective.matmul_fp32.tf32", "yes")
    report = check_document(doc, "bitwise")
    assert [f.rank for f in report.findings] == list(range(1, len(report.findings) + 1))
    assert report.findings[0].rule == "check.tf32"
    assert report.summary.counts["high"] == 1 and report.summary.counts["medium"] == 1


def test_capture_does_not_leave_determinism_on(gpu_clean: Doc) -> None:
    # The fixtures capture inside envsnap.deterministic; everything is put back afterwards.
    assert torch.are_deterministic_algorithms_enabled() is False


def _findings(document: dict[str, Any], target: str = "bitwise") -> dict[str, str]:
    report = check_document(document, target)  # type: ignore[arg-type]
    return {f.rule: f.severity for f in report.findings}


def test_dirty_tree_of_unknown_size_is_reported_as_unknown() -> None:
    document = copy.deepcopy(FULL)
    document["code"].update(dirty=True, diff_bytes=None, diff_sha256=None)
    assert _findings(document).get("check.dirty-tree") == "info"


def test_torch_flags_read_outside_the_job_are_not_claimed_as_the_jobs() -> None:
    job = copy.deepcopy(FULL)
    outside = copy.deepcopy(job)
    outside["torch"]["imported_by"] = "envsnap"
    from_job, from_outside = _findings(job), _findings(outside)
    assert from_job.get("check.tf32") == "high"
    assert from_outside.get("check.tf32") == "info"
