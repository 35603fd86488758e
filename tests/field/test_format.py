"""The case validator accepts well-formed v3 cases and names each problem of a bad one."""

from __future__ import annotations

import copy

from tests.field.format import problems
from tests.field.synthetic import IMPORTED, NVML, case


def test_well_formed_cases_have_no_problems() -> None:
    assert problems(IMPORTED, IMPORTED["id"]) == []
    assert problems(NVML, NVML["id"]) == []
    capture = case(NVML, route="capture")
    for side in ("a", "b"):
        for key in ("gpus", "driver", "cuda_libs"):
            capture[side].pop(key)
    assert problems(capture) == []


def test_each_problem_is_named() -> None:
    bad = copy.deepcopy(NVML)
    bad["label"]["rules"] = ["hw.no-such-rule"]
    bad["label"]["category"] = "drivers"
    bad["a"]["gpus"] = ["no-such-gpu"]
    bad["a"]["job"]["threads"] = "four"
    bad["a"]["job"]["loaders"]["test"] = {}
    bad["a"]["job"]["sdpa"] = {"cudnn": "off", "triton": False}
    bad["a"]["job"]["imports"] = ["transformers", "scipy"]
    bad["b"]["packages"] = {"torch": "2.0.0"}
    bad["b"]["cuda_libs"] = {"nvidia-ml-py": "12.535.77"}
    del bad["b"]["driver"]
    found = problems(bad, "other-name-1-x")
    expected = [
        "differs from the file name",
        "unknown rule ids hw.no-such-rule",
        "label.category 'drivers'",
        "a: gpus: no file tests/field/gpus/no-such-gpu.json",
        "a: job.threads: 'four' has the wrong type",
        "a: job.loaders: unknown loader 'test'",
        "a: job.sdpa: backend -> true/false",
        "a: job.imports: not a planted package the job may import: scipy",
        "b: packages: the job imports torch",
        "b: cuda_libs: not a CUDA library wheel: nvidia-ml-py",
        "driver: state it on both sides or on neither",
    ]
    for text in expected:
        assert any(text in problem for problem in found), (text, found)


def test_sides_hold_only_what_their_route_can() -> None:
    imported = copy.deepcopy(IMPORTED)
    imported["a"]["facts"]["seed"] = 0  # a collect_env report holds no seed
    imported["b"] = {"report": "no-such-report.txt"}
    found = problems(imported)
    assert any("a: facts: unknown keys seed" in p for p in found), found
    assert any("b: report 'no-such-report.txt' is not a file" in p for p in found), found
    capture = case(NVML, route="capture")
    assert any(
        "unknown keys for this route: cuda_libs, driver, gpus" in p for p in problems(capture)
    )


def test_a_capture_label_names_a_rule_its_record_can_hold() -> None:
    # The field job hands a tokenizer or chat template file to capture as data: a label of
    # only the tokenizer and template rules names sections no capture of the route has.
    for route in ("capture", "nvml"):
        only_tokenizer = case(NVML, route=route)
        only_tokenizer["label"]["rules"] = ["data.tokenizer", "data.template"]
        assert any(
            "records no tokenizer or template section" in p for p in problems(only_tokenizer)
        )
        only_tokenizer["label"]["rules"].append("data.content")
        assert not any("tokenizer or template" in p for p in problems(only_tokenizer))
    imported = copy.deepcopy(IMPORTED)
    imported["label"]["rules"] = ["data.tokenizer"]
    assert not any("tokenizer or template" in p for p in problems(imported))


def test_a_side_s_torch_is_a_release_string() -> None:
    good = case(NVML, route="capture", a={"torch": "2.9.1+cu128"}, b={"torch": "2.13.0"})
    assert problems(good) == []
    for bad in ("latest", 2.9, "2.9"):
        found = problems(case(NVML, route="capture", a={"torch": bad}, b={}))
        assert any("torch is the torch.__version__" in p for p in found), (bad, found)


def test_a_job_imports_what_torch_loads_only_where_torch_never_loads_it() -> None:
    """networkx stands in for the incident's own import unless the job compiles (torch.compile
    loads it); sympy never does (the optimizer and capture load it in every job)."""
    capture = case(NVML, route="capture")
    for side in ("a", "b"):
        for key in ("gpus", "driver", "cuda_libs"):
            capture[side].pop(key)
        capture[side]["packages"] = {"networkx": "2.8.8", "sympy": "1.12"}
        capture[side]["job"] = {"imports": ["networkx"]}
    assert problems(capture) == []
    capture["a"]["job"]["compile"] = True
    assert any(
        "job.imports: not a planted package" in p and "networkx" in p for p in problems(capture)
    )
    capture["b"]["job"]["imports"] = ["sympy"]
    assert any(p.startswith("b: job.imports") and "sympy" in p for p in problems(capture))
