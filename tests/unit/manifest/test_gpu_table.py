"""Invariants of the GPU reference table."""

from __future__ import annotations

import pytest

from envsnap.manifest import gpu_table


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("Tesla V100-SXM2-32GB", "7.0"),
        ("Quadro GV100", "7.0"),
        ("Tesla T4", "7.5"),
        ("Quadro RTX 6000", "7.5"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA A100 80GB PCIe", "8.0"),
        ("NVIDIA A10G", "8.6"),
        ("NVIDIA A10", "8.6"),
        ("NVIDIA RTX A6000", "8.6"),
        ("NVIDIA GeForce RTX 3090", "8.6"),
        ("NVIDIA L4", "8.9"),
        ("NVIDIA L40S", "8.9"),
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA H100 PCIe", "9.0"),
        ("NVIDIA H200", "9.0"),
        ("NVIDIA GH200 480GB", "9.0"),
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GB200", "10.0"),
        ("NVIDIA B300 SXM6 AC", "10.3"),
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
        ("NVIDIA GB10", "12.1"),
    ],
)
def test_names_map_to_compute_capability(name: str, cc: str) -> None:
    assert gpu_table.cc_for_name(name) == cc


def test_unknown_name_is_none() -> None:
    assert gpu_table.cc_for_name("Matrox G200eW") is None


def test_a_name_longer_than_any_driver_prints_denotes_no_gpu() -> None:
    # A hostile manifest's 1 MB name once cost one whole-text search per table entry.
    assert gpu_table.lookup("NVIDIA H100 " + "x" * gpu_table.MAX_NAME_CHARS) == ()
    assert gpu_table.lookup("NVIDIA H100 80GB HBM3") != ()


def test_every_entry_agrees_with_the_capability_table_and_cites_a_source() -> None:
    entries = gpu_table.models()
    assert len(entries) >= 170
    for entry in entries:
        assert gpu_table.arch_name(entry.compute_capability) == entry.architecture, entry.name
        assert entry.source.startswith("https://"), entry.name
        assert entry.uncertain == bool(entry.note and entry.note.lower().startswith("uncertain"))
    architectures = {entry.architecture for entry in entries}
    assert {"Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere"} <= architectures
    assert {"Ada Lovelace", "Hopper", "Blackwell"} <= architectures
    segments = {entry.segment for entry in entries}
    assert {"geforce", "titan", "quadro", "rtx-pro", "datacenter", "embedded"} <= segments


@pytest.mark.parametrize(
    ("name", "cc", "arch", "sms"),
    [
        # Names the issue found missing: GTX 10xx/16xx, TITAN X/Xp, TITAN RTX.
        ("GeForce GTX 1080 Ti", "6.1", "Pascal", 28),
        ("NVIDIA GeForce GTX 1660 SUPER", "7.5", "Turing", 22),
        ("TITAN Xp", "6.1", "Pascal", 30),
        ("GeForce GTX TITAN X", "5.2", "Maxwell", 24),
        ("NVIDIA TITAN X (Pascal)", "6.1", "Pascal", 28),
        ("TITAN RTX", "7.5", "Turing", 72),
        ("Tesla K80", "3.7", "Kepler", 13),
        # A longer printed name resolves to the variant it contains, never a shorter model.
        ("Tesla V100-SXM2-16GB", "7.0", "Volta", 80),
        ("NVIDIA A100-SXM4-80GB", "8.0", "Ampere", 108),
    ],
)
def test_names_resolve_to_architecture_and_sm_count(
    name: str, cc: str, arch: str, sms: int
) -> None:
    facts = gpu_table.facts_for_name(name)
    assert facts is not None
    assert (facts.compute_capability, facts.architecture, facts.sm_count) == (cc, arch, sms)


def test_a_shared_variant_gives_no_sm_count_and_uncertain_entries_are_marked() -> None:
    orin = gpu_table.facts_for_name("Orin")
    assert orin is not None and orin.compute_capability == "8.7" and orin.sm_count is None
    h20 = gpu_table.facts_for_name("NVIDIA H20")
    assert h20 is not None and h20.uncertain
    assert gpu_table.facts_for_name("NVIDIA A10") != gpu_table.facts_for_name("NVIDIA A100")


@pytest.mark.parametrize(
    ("cc", "tf32", "fp8", "flash"),
    [
        ("6.1", False, False, False),
        ("7.0", False, False, False),
        ("7.5", False, False, False),
        ("8.0", True, False, True),
        ("8.6", True, False, True),
        ("8.9", True, True, True),
        ("9.0", True, True, True),
        ("10.0", True, True, True),
        ("12.1", True, True, True),
        ("13.0", True, True, False),
    ],
)
def test_capability_thresholds(cc: str, tf32: bool, fp8: bool, flash: bool) -> None:
    caps = gpu_table.capabilities(cc)
    assert (caps.tf32, caps.bf16, caps.fp8, caps.flash_sdpa) == (tf32, tf32, fp8, flash)


def test_arch_falls_back_to_major_and_rejects_garbage() -> None:
    assert gpu_table.arch_name("6.0") == "Pascal"
    assert gpu_table.arch_name("9.0") == "Hopper"
    assert gpu_table.arch_name("x.y") is None
    with pytest.raises(ValueError):
        gpu_table.capabilities("eight")
