"""Differ v2: one finding per cause, evidence, ranking on evidence, noise by meaning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.argv import classify, parse
from envsnap.diff.catalog.aliases import canonical, names_of
from envsnap.diff.device import effective_tf32, job_device
from envsnap.diff.env_meaning import cannot_act
from envsnap.diff.report import SEVERITY_RANK, Report
from envsnap.render.findings import render_markdown, render_table
from tests.helpers.manifests import full_pair as _pair

GPUS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "field" / "gpus.json").read_text(encoding="utf-8")
)


def _above_info(report: Report) -> list[str]:
    return [f.rule for f in report.findings if SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"]]


def _gpus(doc: dict[str, Any], name: str, count: int) -> None:
    facts = GPUS[name]
    base = doc["gpu"]["devices"]["0"]
    tf32 = facts["compute_capability"] >= "8.0"
    doc["gpu"]["devices"] = {
        str(i): {
            **base,
            "index": i,
            "name": name,
            "compute_capability": facts["compute_capability"],
            "arch": facts["arch"],
            "sm_count": facts["sm_count"],
            "capabilities": {"tf32": tf32, "bf16": tf32, "fp8": False, "flash_sdpa": tf32},
        }
        for i in range(count)
    }
    doc["gpu"]["device_count"] = count


def test_output_directory_only_gives_nothing_above_info() -> None:
    a, b = _pair()
    a["run"]["argv"] = ["python", "train.py", "--lr", "3e-4", "--out", "runs/a"]
    b["run"]["argv"] = ["python", "train.py", "--lr", "3e-4", "--out", "runs/a2"]
    b["created_at"] = "2031-01-01T00:00:00Z"
    assert _above_info(diff_documents(a, b)) == []


def test_pythonhashseed_change_is_one_finding() -> None:
    a, b = _pair()
    del b["env"]["variables"]["PYTHONHASHSEED"]
    b["seeds"]["pythonhashseed"] = None
    found = _above_info(diff_documents(a, b))
    assert found == ["randomness.pythonhashseed"]
    finding = diff_documents(a, b).findings[0]
    assert {e.path for e in finding.evidence} == {
        "env.variables.PYTHONHASHSEED",
        "seeds.pythonhashseed",
    }


def test_dirty_tree_is_one_finding() -> None:
    a, b = _pair()
    b["code"].update(dirty=True, diff_sha256="9" * 64, diff_bytes=120)
    assert _above_info(diff_documents(a, b)) == ["code.dirty"]


def test_untracked_files_are_their_own_lower_finding_after_tracked_edits() -> None:
    a, b = _pair()
    b["code"].update(dirty=True, diff_sha256="9" * 64, diff_bytes=120, untracked_count=3)
    b["code"]["untracked_digest"] = "7" * 64
    findings = {f.rule: f.severity for f in diff_documents(a, b).findings}
    assert _above_info(diff_documents(a, b)) == ["code.dirty", "code.untracked"]
    assert (findings["code.dirty"], findings["code.untracked"]) == ("high", "low")


def test_gpu_swap_is_one_finding_that_names_the_ways_it_acts() -> None:
    a, b = _pair()
    _gpus(a, "NVIDIA RTX A4000", 4)
    _gpus(b, "NVIDIA GeForce RTX 2070 SUPER", 1)
    report = diff_documents(a, b)
    rules = [f.rule for f in report.findings if f.category != "noise"]
    assert rules.count("hw.gpu") == 1
    hardware = report.findings[0]
    assert hardware.rule == "hw.gpu"
    assert hardware.title.startswith(
        "GPU changed: 4× RTX A4000 (Ampere sm_86, 48 SMs) → 1× RTX 2070 SUPER (Turing sm_75, "
        "40 SMs); through it: "
    )
    # The kernels, random streams and TF32 state the new GPU brings are this finding's.
    assert "seeded CUDA random streams differ: 48 → 40 SMs" in hardware.title
    assert "TF32" in hardware.title
    assert {"gpu.devices.0.arch", "gpu.devices.0.sm_count"} <= {e.path for e in hardware.evidence}
    assert {"hw.gpu-kernels", "randomness.cuda-rng-sm-count"} <= set(hardware.rules)
    assert any(rule.startswith("precision.tf32") for rule in hardware.rules)
    assert not any(rule.startswith(("randomness.", "precision.tf32")) for rule in rules)
    assert hardware.severity == "high"  # the strongest of its ways: the random streams
    assert report.reaches("randomness.cuda-rng-sm-count")
    assert len(rules) == len(set(rules))  # no cause reported twice


def test_a_tf32_difference_the_settings_make_stays_its_own_cause_beside_a_gpu_swap() -> None:
    a, b = _pair()
    _gpus(a, "NVIDIA A100-SXM4-80GB", 1)
    _gpus(b, "NVIDIA H100 80GB HBM3", 1)
    b["torch"]["matmul"]["allow_tf32"] = not a["torch"]["matmul"]["allow_tf32"]
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert "hw.gpu" in rules
    assert any(rule.startswith("precision.tf32") for rule in rules)


def test_torch_version_seen_at_three_paths_is_one_fact() -> None:
    a, b = _pair()
    for path in (("packages", "installed", "torch", "version"), ("torch", "version")):
        node = b
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = "2.4.1+cu121"
    b["cuda_stack"]["torch_version"] = "2.4.1+cu121"
    torch = [f for f in diff_documents(a, b).findings if f.rule == "stack.torch"]
    assert len(torch) == 1 and len(torch[0].evidence) == 3


def test_gpu_only_settings_drop_to_info_between_cpu_only_sides() -> None:
    a, b = _pair()
    for doc in (a, b):
        doc["gpu"]["devices"] = {}
        doc["gpu"]["device_count"] = 0
        doc["precision"]["device"] = "cpu"
    b["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
    b["env"]["variables"]["NVIDIA_TF32_OVERRIDE"] = "0"
    assert _above_info(diff_documents(a, b)) == []


def test_environment_variables_by_meaning() -> None:
    assert cannot_act("TF_CLI_CONFIG_FILE") and cannot_act("TORCHINDUCTOR_CACHE_DIR")
    assert not cannot_act("LD_LIBRARY_PATH") and not cannot_act("TF_DETERMINISTIC_OPS")
    a, b = _pair()
    b["env"]["variables"]["TF_CLI_CONFIG_FILE"] = "/home/b/.terraformrc"
    assert _above_info(diff_documents(a, b)) == []


def test_command_line_flags_are_classified() -> None:
    positional, flags = parse(["train.py", "--lr=3e-4", "--out", "runs/a", "--fp16", "-n", "-1"])
    assert positional == ["train.py"]
    assert flags == {"lr": "3e-4", "out": "runs/a", "fp16": "true", "n": "-1"}
    assert classify("lr", "3e-4", "6e-4") == "semantics.hyperparameters"
    assert classify("output_dir", "a", "b") == "noise.argv"
    assert classify("per_device_train_batch_size", "8", "16") == "semantics.batch"
    assert classify("config", "a.yaml", "b.yaml") == "code.argv"
    assert classify("resize_to", "out/a.png", "out/b.png") == "noise.argv"
    for cadence in ("log_every", "log-interval", "print_every", "save_every_n_steps", "ckpt_freq"):
        assert classify(cadence.replace("-", "_"), "100", "50") == "noise.argv", cadence
    assert classify("eval_every", "100", "50") == "code.argv"  # evaluating can draw randomness


def test_parallel_degrees_and_dotted_overrides_are_classified_by_their_key() -> None:
    # Megatron's, torchtitan's and DeepSpeed's names for a parallel layout; a dotted config
    # override is classified by its last key, whatever section holds it.
    _, flags = parse(
        ["--tensor-model-parallel-size", "2", "--parallelism.context_parallel_degree=2"]
    )
    for name in (*flags, "pp_size", "zero_stage", "num_processes"):
        assert classify(name, "1", "2") == "semantics.parallel", name
    assert classify("training.batch_size", "8", "16") == "semantics.batch"
    assert classify("optimizer.lr", "3e-4", "6e-4") == "semantics.hyperparameters"
    assert classify("job.dump_folder", "out/a", "out/b") == "noise.argv"
    assert classify("model.flavor", "debug", "8B") == "code.argv"
    # A bare key takes its meaning from its section.
    assert classify("model.name", "llama3", "deepseek_v3") == "code.argv"
    assert classify("optimizer.name", "AdamW", "Lion") == "code.argv"
    assert classify("wandb.name", "run-a", "run-b") == "noise.argv"
    assert classify("compile.backend", "inductor", "aot_eager") == "code.argv"
    assert classify("comm.backend", "nccl", "gloo") == "semantics.parallel"
    for name in ("num_machines", "ddp_backend", "expert_tensor_parallel_size",
                 "virtual_pipeline_model_parallel_size"):  # fmt: skip
        assert classify(name, "1", "2") == "semantics.parallel", name


def test_learning_rate_change_is_one_finding() -> None:
    a, b = _pair()
    a["run"]["argv"] = ["python", "train.py", "--lr", "3e-4"]
    b["run"]["argv"] = ["python", "train.py", "--lr", "6e-4"]
    b["precision"]["optimizer"]["param_groups"]["0"]["lr"] = 0.0006
    assert _above_info(diff_documents(a, b)) == ["semantics.hyperparameters"]


def test_gpu_versus_cpu_is_a_device_and_a_tf32_finding() -> None:
    a, b = _pair()
    b["precision"]["device"] = "cpu"
    assert job_device(b) == "cpu" and effective_tf32(b, "conv") == "no"
    assert effective_tf32(a, "conv") == "yes"
    rules = _above_info(diff_documents(a, b))
    assert "hw.device" in rules and "precision.tf32-effective" in rules


def test_imported_record_device_comes_from_cuda_availability() -> None:
    doc = {"extra": {"imported_facts": {"is_cuda_available": False}}}
    assert job_device(doc) == "cpu"


def test_ranking_is_on_evidence_and_explained() -> None:
    a, b = _pair()
    a["packages"]["installed"]["torch"]["version"] = "2.8.0+cu128"
    b["packages"]["installed"]["torch"]["version"] = "2.9.0+cu128"
    report = diff_documents(a, b)
    top = report.findings[0]
    # The default flip is how the release acts: one finding, as specific as the flip.
    assert top.rule == "stack.torch" and "flip.torch-2.9-fp32-precision" in top.rules
    assert top.rank_reason and "default flip" in top.rank_reason


def test_former_rule_ids_still_work_for_ignore_and_fail_on() -> None:
    assert canonical("hw.gpu-sku") == "hw.gpu" and "hw.gpu-sku" in names_of("hw.gpu")
    a, b = _pair()
    _gpus(b, "NVIDIA H100 80GB HBM3", 2)
    report = diff_documents(a, b)
    assert report.reaches("hw.gpu-sku") and report.reaches("hw.gpu-arch")
    ignored = diff_documents(a, b, ignore=["hw.gpu-sku"])
    assert "hw.gpu" not in {f.rule for f in ignored.findings}


def test_table_hides_bookkeeping_fits_and_explains_top_findings() -> None:
    a, b = _pair()
    b["code"]["dirty"] = True
    b["created_at"] = "2031-01-01T00:00:00Z"
    report = diff_documents(a, b)
    text = render_table(report, color=False, width=80)
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "bookkeeping difference(s) hidden" in text
    assert "why: with a dirty tree the commit alone no longer identifies" in text
    assert "fix: Commit before running" in text
    assert "capture bookkeeping" in render_table(report, color=False, show_all=True)
    assert "capture bookkeeping" not in render_markdown(report)
    assert report.summary.verdict.startswith("most likely cause (close): uncommitted changes")


def test_gpu_only_variable_is_info_when_both_sides_run_a_cpu_only_torch_build() -> None:
    """A CLI capture on a machine without a GPU records no job device and no GPU section,
    only that torch is a CPU build: cuBLAS cannot act, the thread count can."""
    a, b = _pair()
    for doc in (a, b):
        doc["precision"] = None
        doc["gpu"] = None
        doc["cuda_stack"].update(torch_build="cpu", torch_cuda=None, torch_version="2.13.0+cpu")
    b["env"]["variables"].update(CUBLAS_WORKSPACE_CONFIG=":16:8", OMP_NUM_THREADS="3")
    report = diff_documents(a, b)
    assert _above_info(report) == ["env.threads"]
    assert report.findings[0].rule == "env.threads"


def test_a_fact_a_derived_rule_reads_is_not_repeated_as_an_other_difference() -> None:
    """'cpu' → 'cuda:0' is the device finding; the raw path must not come back as a fallback."""
    a, b = _pair()
    a["precision"]["device"] = "cpu"
    b["precision"]["device"] = "cuda:0"
    report = diff_documents(a, b)
    citing = [f.rule for f in report.findings if "precision.device" in {e.path for e in f.evidence}]
    assert citing == ["hw.device"]


def _cpu_only_pair_with_a_cublas_change() -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = _pair()
    for doc in (a, b):
        doc["precision"]["device"] = "cpu"
    b["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
    b["created_at"] = "2031-01-01T00:00:00Z"
    b["system"]["hostname"] = "other-node"
    return a, b


def test_bookkeeping_ranks_after_every_cause_and_is_never_active() -> None:
    report = diff_documents(*_cpu_only_pair_with_a_cublas_change())
    categories = [f.category for f in report.findings]
    assert "noise" in categories and categories[0] != "noise"
    first_noise = categories.index("noise")
    assert set(categories[first_noise:]) == {"noise"}
    for finding in report.findings[first_noise:]:
        assert "active on the run" not in (finding.rank_reason or "")


def test_an_info_only_headline_names_the_top_finding_not_a_bookkeeping_count() -> None:
    report = diff_documents(*_cpu_only_pair_with_a_cublas_change())
    assert _above_info(report) == []
    assert "CUBLAS_WORKSPACE_CONFIG" in report.summary.verdict
    assert "bookkeeping" not in report.summary.verdict


def test_a_gpu_feature_one_side_does_not_record_is_not_named_as_the_other_side_s() -> None:
    a, b = _pair()
    _gpus(a, "NVIDIA A100-SXM4-80GB", 1)
    _gpus(b, "NVIDIA H100 80GB HBM3", 1)
    b["gpu"]["devices"]["0"]["capabilities"]["fp8"] = True  # Hopper has FP8
    a["gpu"]["devices"]["0"]["capabilities"]["fp8"] = None  # not recorded on A
    title = diff_documents(a, b).findings[0].title
    assert "fp8" not in title
    a["gpu"]["devices"]["0"]["capabilities"]["fp8"] = False
    assert "fp8 on B only" in diff_documents(a, b).findings[0].title
