"""Differ v3: every finding says what it rests on, and a note never outranks a difference."""

from __future__ import annotations

import json
from typing import Any

from envsnap.diff import diff_documents
from envsnap.diff.derived import Hit
from envsnap.diff.rank import build_report
from envsnap.diff.report import SEVERITY_RANK
from envsnap.interop.importers import load_any
from tests.helpers import FIXTURES
from tests.helpers.manifests import full_pair

TF32_FROM_DEFAULTS = (
    "TF32 for fp32 matmul from torch 1.10 defaults (allow_tf32 default True in 1.7-1.11, "
    "pytorch/pytorch#76509)"
)


def _by_rule(report: Any, rule: str) -> Any:
    return next(f for f in report.findings if f.rule == rule)


def _cpu_only_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two CLI captures on machines without a GPU: a CPU torch build, no GPU section."""
    a, b = full_pair()
    for doc in (a, b):
        doc["precision"] = None
        doc["gpu"] = None
        doc["cuda_stack"].update(torch_build="cpu", torch_cuda=None, torch_version="2.13.0+cpu")
    return a, b


# --- basis ---------------------------------------------------------------------------------
def test_a_stated_difference_rests_on_the_records() -> None:
    a, b = full_pair()
    b["code"]["dirty"] = True
    finding = _by_rule(diff_documents(a, b), "code.dirty")
    assert finding.basis == "stated"
    assert all(entry.inferred is None for entry in finding.evidence)


def test_a_field_one_side_could_not_read_is_a_note_about_what_is_unknown() -> None:
    a, b = full_pair()
    b["torch"]["cudnn"]["allow_tf32"] = None
    b["torch"]["unknown"] = {"cudnn.allow_tf32": "torch refused to report it"}
    assert _by_rule(diff_documents(a, b), "uncaptured").basis == "unknown"


def test_determinism_settings_missing_on_one_side_or_both_are_notes() -> None:
    a, b = full_pair()
    b["torch"] = None
    one = _by_rule(diff_documents(a, b), "algo.determinism-mismatch")
    assert one.basis == "unknown" and "not captured in B" in one.title
    a["torch"] = None
    both = _by_rule(diff_documents(a, b), "algo.determinism-mismatch")
    assert both.basis == "unknown" and "captured on neither side" in both.title


def test_an_inferred_hit_gives_an_inferred_finding_and_marks_its_evidence() -> None:
    inferred = Hit(
        "precision.tf32-effective",
        "torch.effective.matmul_fp32.tf32",
        "yes",
        "no",
        inferred=TF32_FROM_DEFAULTS,
    )
    alone = build_report([inferred], target="close").findings[0]
    assert alone.basis == "inferred"
    assert [e.inferred for e in alone.evidence] == [TF32_FROM_DEFAULTS]
    # A stated fact of the same cause makes the finding stated; each entry keeps its origin.
    stated = Hit("precision.tf32-matmul", "torch.matmul.allow_tf32", True, False)
    mixed = build_report([inferred, stated], target="close").findings[0]
    assert mixed.basis == "stated"
    origins = {e.path: e.inferred for e in mixed.evidence}
    assert origins == {
        "torch.effective.matmul_fp32.tf32": TF32_FROM_DEFAULTS,
        "torch.matmul.allow_tf32": None,
    }


# --- a note never outranks a difference ----------------------------------------------------
def test_a_low_difference_ranks_above_a_missing_section_on_one_side() -> None:
    a, b = full_pair()
    a["packages"]["installed"]["pygments"]["version"] = "99.0.0"
    b["packages"]["installed"]["pygments"]["version"] = "99.0.1"
    b["tokenizer"] = None  # a whole section one side did not capture
    report = diff_documents(a, b)
    top, note = report.findings[0], _by_rule(report, "uncaptured")
    assert (top.rule, top.severity, top.basis) == ("stack.package", "low", "stated")
    # The note is more severe and still lists after the difference.
    assert SEVERITY_RANK[note.severity] > SEVERITY_RANK[top.severity]
    assert note.rank > top.rank and note.basis == "unknown"


def test_a_gpu_only_variable_between_cpu_captures_ranks_above_every_note() -> None:
    for name, value in (("CUBLAS_WORKSPACE_CONFIG", ":16:8"), ("NVIDIA_TF32_OVERRIDE", "0")):
        a, b = _cpu_only_pair()
        b["env"]["variables"][name] = value
        b["data"] = None
        report = diff_documents(a, b)
        top = report.findings[0]
        assert top.path == f"env.variables.{name}", (name, top.rule, top.path)
        assert top.severity in ("info", "low") and top.basis == "stated"
        notes = [f for f in report.findings if f.basis == "unknown"]
        assert notes and all(note.rank > top.rank for note in notes)


def test_bookkeeping_lists_after_notes() -> None:
    """Bookkeeping cannot change results: a note about a missing section says more."""
    a, b = full_pair()
    b["gpu"] = None
    b["system"]["hostname"] = "elsewhere"
    report = diff_documents(a, b)
    groups = [f.basis if f.category != "noise" else "noise" for f in report.findings]
    assert groups.index("noise") > max(i for i, g in enumerate(groups) if g == "unknown")
    assert report.summary.verdict.startswith(
        "no recorded difference explains a disagreement (close); cannot compare gpu"
    )


# --- one note per section ------------------------------------------------------------------
def test_the_facts_one_side_lacks_in_a_section_are_one_finding() -> None:
    a, b = full_pair()
    unknown = {"cudnn.allow_tf32": "torch refused", "cudnn.benchmark": "torch refused"}
    unknown["matmul.allow_tf32"] = "torch refused"
    for key in unknown:
        head, leaf = key.split(".")
        b["torch"][head][leaf] = None
    b["torch"]["unknown"] = unknown
    notes = [f for f in diff_documents(a, b).findings if f.rule == "uncaptured"]
    assert len(notes) == 1
    assert notes[0].title == "cannot compare torch: 3 facts not recorded on B (torch refused)"
    assert sorted(e.path for e in notes[0].evidence) == sorted(f"torch.{k}" for k in unknown)


def test_an_imported_record_gives_one_note_per_section_counting_its_facts() -> None:
    imported = load_any(str(FIXTURES / "collect_env" / "05_2021_torch1.10_windows.txt"))
    full = json.loads((FIXTURES / "manifests" / "full.json").read_text(encoding="utf-8"))
    report = diff_documents(imported.to_document(), full)
    notes = [f for f in report.findings if f.rule == "uncaptured"]
    sections = [note.evidence[0].path.split(".")[0] for note in notes]
    assert len(sections) == len(set(sections))
    packages = next(n for n in notes if n.title.startswith("cannot compare packages:"))
    count = len(packages.evidence)
    assert count > 100
    assert packages.title.startswith(f"cannot compare packages: {count} facts not recorded on A (")
    assert "collect_env report" in packages.title


# --- a risk both sides share ----------------------------------------------------------------
def _hash_seed_unset(doc: dict[str, Any]) -> None:
    doc["seeds"]["pythonhashseed"] = None
    doc["env"]["variables"].pop("PYTHONHASHSEED", None)
    doc["python"]["hash_randomization"] = True


def test_hashing_left_random_on_both_sides_is_a_shared_risk_below_every_difference() -> None:
    a, b = full_pair()
    for doc in (a, b):
        _hash_seed_unset(doc)
    alone = diff_documents(a, b)
    risk = _by_rule(alone, "shared.hash-seed")
    assert (risk.basis, risk.severity) == ("shared", "low")
    # It names the likely source without being a difference: no gate trips on it but its id.
    assert alone.summary.verdict.startswith(
        "no difference expected to change results (close); if the runs disagree, 1 shared risk"
    )
    assert not alone.reaches("low") and alone.reaches("shared.hash-seed")
    b["packages"]["installed"]["pygments"]["version"] = "99.0.1"
    with_difference = diff_documents(a, b)
    assert with_difference.findings[0].rule.startswith("stack.package")
    assert _by_rule(with_difference, "shared.hash-seed").rank > 1


def test_hashing_fixed_on_one_side_is_a_difference_not_a_shared_risk() -> None:
    a, b = full_pair()
    _hash_seed_unset(b)
    rules = [f.rule for f in diff_documents(a, b).findings]
    assert "shared.hash-seed" not in rules
    assert "randomness.pythonhashseed" in rules


def test_records_that_never_looked_for_pythonhashseed_share_no_hashing_risk() -> None:
    # A collect_env report prints no environment variables: PYTHONHASHSEED is unknown on both
    # sides, not unset, so nothing says either run salted its str hashing.
    report = FIXTURES / "collect_env" / "real" / "pytorch-60367_rtx2070s.txt"
    imported = load_any(str(report)).to_document()
    assert "shared.hash-seed" not in [f.rule for f in diff_documents(imported, imported).findings]
    # A capture that selected the variable by name and found it absent does say so.
    a, b = full_pair()
    for doc in (a, b):
        _hash_seed_unset(doc)
        doc.pop("seeds")
        assert "PYTHONHASHSEED" in doc["env"]["names"]
    assert "shared.hash-seed" in [f.rule for f in diff_documents(a, b).findings]
    for doc in (a, b):
        doc["env"]["names"].remove("PYTHONHASHSEED")
        doc["env"]["prefixes"] = [
            p for p in doc["env"]["prefixes"] if not "PYTHONHASHSEED".startswith(p)
        ]
    assert "shared.hash-seed" not in [f.rule for f in diff_documents(a, b).findings]


def test_no_seed_on_either_in_job_side_is_one_shared_risk() -> None:
    a, b = full_pair()
    for doc in (a, b):
        doc["seeds"].update(master_seed=None, seeded=[], torch_initial_seed=None)
        doc["run"]["argv"] = ["train.py"]
    shared = [f for f in diff_documents(a, b).findings if f.basis == "shared"]
    assert [f.rule for f in shared].count("shared.no-seed") == 1
    # The workers' seeds follow from the missing seed: merged into that one finding.
    assert "shared.dataloader-workers" not in [f.rule for f in shared]


def test_shared_risks_follow_their_reach_not_their_rule_ids() -> None:
    # An unseeded job also leaves str hashing salted: every draw from the first step differs,
    # which reaches more of the run than the order of str-keyed sets does.
    a, b = full_pair()
    for doc in (a, b):
        doc["seeds"].update(master_seed=None, seeded=[], torch_initial_seed=None)
        doc["run"]["argv"] = ["train.py"]
        _hash_seed_unset(doc)
    for target in ("bitwise", "close", "conclusion"):
        shared = [
            f.rule for f in diff_documents(a, b, target=target).findings if f.basis == "shared"
        ]
        assert shared.index("shared.no-seed") < shared.index("shared.hash-seed"), target


def _shared_with_hashing_and_kernels_open(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> list[str]:
    """The shared risks' rules, in order, once both sides salt str hashing and allow
    nondeterministic kernels."""
    for doc in pair:
        _hash_seed_unset(doc)
        doc["torch"]["deterministic"]["algorithms"] = False
        doc["torch"]["cudnn"].update(deterministic=False, benchmark=True)
    return [f.rule for f in diff_documents(*pair).findings if f.basis == "shared"]


def test_nondeterministic_gpu_kernels_reach_further_than_str_hashing() -> None:
    # Atomic-add backward kernels reorder sums at every step of a GPU run; a salted str hash
    # reorders only str sets. On the CPU, few kernels are nondeterministic: hashing leads.
    on_gpu = _shared_with_hashing_and_kernels_open(full_pair())
    assert on_gpu.index("shared.nondeterministic") < on_gpu.index("shared.hash-seed")
    on_cpu = _shared_with_hashing_and_kernels_open(_cpu_only_pair())
    assert on_cpu.index("shared.hash-seed") < on_cpu.index("shared.nondeterministic")
