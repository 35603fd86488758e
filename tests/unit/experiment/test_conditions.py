"""What of a manifest can be applied, keyed alike on both sides, and mixed for an experiment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envsnap.experiment.conditions import (
    conditions_of,
    differing,
    keys_for_path,
    mix,
    split_path,
)
from envsnap.experiment.metric import compile_metric, metric_from_text
from envsnap.training.seeding.derive import derive_seed, numpy_seed_words


def _doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "env": {
            "variables": {"PYTHONHASHSEED": "0", "NCCL_TOKEN": "<redacted>"},
            "prefixes": ["NCCL_"],
            "names": ["PYTHONHASHSEED"],
            "redacted": ["NCCL_TOKEN"],
        },
        "torch": {
            "num_threads": 4,
            "default_dtype": "torch.float32",
            "deterministic": {"algorithms": False, "warn_only": False},
            "matmul": {"allow_fp16_reduced_precision_reduction": "(True, True)"},
        },
        "seeds": {"master_seed": 7, "rank": None, "derived": {}},
        "packages": {
            "installed": {
                "numdefault": {"version": "1.0", "source": "index"},
                "mine": {"version": "0.1", "source": "editable"},
            }
        },
    }
    for section, values in changes.items():
        doc[section] = {**doc[section], **values}
    return doc


def test_paths_map_to_conditions() -> None:
    assert split_path('packages.installed["zope.interface"].version') == (
        "packages", "installed", "zope.interface", "version",
    )  # fmt: skip
    assert keys_for_path("env.variables.PYTHONHASHSEED") == ["env:PYTHONHASHSEED"]
    assert keys_for_path("seeds.pythonhashseed") == ["env:PYTHONHASHSEED"]
    assert keys_for_path("seeds.derived.torch") == ["seed"]
    assert keys_for_path("torch.deterministic") == [
        "torch:deterministic.fill_uninitialized_memory",
        "torch:deterministic.algorithms",
        "torch:deterministic.warn_only",
    ]
    assert keys_for_path("packages.installed.numdefault.version") == ["package:numdefault"]
    assert keys_for_path("gpu.devices.0.name") == []
    assert keys_for_path("torch.version") == []


def test_conditions_skip_redacted_values_and_local_builds() -> None:
    found = conditions_of(_doc())
    assert found.values["env:PYTHONHASHSEED"].value == "0"
    assert "env:NCCL_TOKEN" not in found.values
    assert "redacted" in found.skipped["env:NCCL_TOKEN"]
    assert "editable" in found.skipped["package:mine"]
    assert found.values["package:numdefault"].value == "1.0"
    # A tuple-valued text flag cannot be set back; it is left out.
    assert "torch:matmul.allow_fp16_reduced_precision_reduction" not in found.values
    seed = found.values["seed"].value
    assert seed["torch"] == derive_seed(7, "torch")
    assert seed["numpy"] == numpy_seed_words(derive_seed(7, "numpy"))


def test_differing_and_mix_take_chosen_keys_from_b() -> None:
    a = conditions_of(_doc())
    b = conditions_of(
        _doc(
            torch={"num_threads": 8},
            env={"variables": {"NCCL_ALGO": "Tree", "NCCL_DEBUG": "INFO"}, "redacted": []},
            seeds={"master_seed": 8},
        )
    )
    keys = differing(a, b)
    # NCCL_DEBUG is a log setting, outside the table of variables that change results.
    assert keys == ["env:NCCL_ALGO", "env:PYTHONHASHSEED", "seed", "torch:num_threads"]
    assert "not in envsnap's table" in b.skipped["env:NCCL_DEBUG"]
    mixed = mix(a, b, ["torch:num_threads", "env:PYTHONHASHSEED"])
    assert mixed.values["torch:num_threads"].value == 8
    assert mixed.values["env:PYTHONHASHSEED"].value is None  # B did not set it: unset
    assert mixed.values["seed"].value["master_seed"] == 7
    assert mixed.selects_env("NCCL_ANYTHING")


def test_metric_is_the_last_match() -> None:
    pattern = compile_metric(r"loss=(\S+)")
    assert metric_from_text("loss=1.5\nloss=0.25\n", pattern) == 0.25
    assert metric_from_text("nothing here", pattern) is None
    assert metric_from_text(" 3e-2\n", None) == 0.03
    assert metric_from_text("3 4", None) is None


def test_metric_is_the_last_match_of_an_output_larger_than_the_read_limit(tmp_path: Path) -> None:
    """A chatty job prints its final metric after megabytes of logs: the value is read from
    the end of its output, within the same bounded read."""
    from envsnap.experiment.metric import MAX_METRIC_FILE_BYTES, read_metric

    stdout = tmp_path / "stdout.txt"
    filler = b"step log line that does not carry the metric\n"
    with stdout.open("wb") as handle:
        handle.write(b"loss=1.0\n")
        handle.write(filler * (2 * MAX_METRIC_FILE_BYTES // len(filler)))
        handle.write("loss=0.5 \u00e9\n".encode())
    assert read_metric(stdout, None, compile_metric(r"loss=(\S+)")) == 0.5
