"""The noise model draws the same noise every run, covers noise.md's items a route can hold,
and never touches a fact the case states."""

from __future__ import annotations

import copy

from tests.field.drivers import PATCHES
from tests.field.noise import DISTROS, DRAWS, draw
from tests.field.synthetic import IMPORTED, NVML, case


def test_draws_are_seeded_by_case_draw_and_side() -> None:
    assert draw(NVML, "a", 0) == draw(copy.deepcopy(NVML), "a", 0)
    assert draw(NVML, "a", 0) != draw(NVML, "a", 1)
    assert draw(NVML, "a", 0) != draw(NVML, "b", 0)
    assert draw(NVML, "a", 0) != draw(case(NVML, id="synthetic-3-other-case"), "a", 0)


def test_job_noise_covers_the_items_a_capture_can_hold() -> None:
    env: set[str] = set()
    untracked: set[str] = set()
    packages: set[str] = set()
    flags: set[str] = set()
    for index in range(40):
        for side in ("a", "b"):
            noise = draw(NVML, side, index)
            env |= set(noise.env)
            untracked |= {path.split("/")[0] for path in noise.untracked}
            packages |= set(noise.packages)
            flags |= {arg for arg in noise.argv if arg.startswith("--")}
    assert env >= {"LANG", "TZ", "TERM", "SHELL", "COLUMNS", "TMPDIR", "EDITOR"}
    assert env >= {"HF_HOME", "TORCH_HOME", "XDG_CACHE_HOME", "TORCHINDUCTOR_CACHE_DIR"}
    assert env >= {"SLURM_JOB_ID", "NCCL_SOCKET_IFNAME", "MASTER_PORT", "MASTER_ADDR"}
    assert untracked >= {"logs", "outputs", "wandb", "mlruns", ".ipynb_checkpoints", "uv.lock"}
    assert packages >= {"pip", "certifi", "ipython", "black"}
    assert flags >= {"--output_dir", "--run_name", "--log-every", "--report_to"}
    users = {draw(NVML, "a", index).user for index in range(10)}
    assert len(users) > 1


def test_noise_never_touches_a_stated_fact() -> None:
    stated = copy.deepcopy(NVML)
    stated["a"]["env"] = {"LANG": "C", "SLURM_JOB_ID": "1", "TZ": "UTC"}
    stated["b"]["packages"] = {"pip": "24.0", "ipython": "8.0.0", "certifi": "2024.2.2"}
    stated["a"]["job"]["argv"] = ["--output_dir", "out", "--report_to=none"]
    for index in range(DRAWS * 10):
        for side in ("a", "b"):
            noise = draw(stated, side, index)
            assert not {"LANG", "SLURM_JOB_ID", "TZ"} & set(noise.env)
            assert not {"pip", "ipython", "certifi", "transformers"} & set(noise.packages)
            assert not {"nvidia-cudnn-cu12", "nvidia-nccl-cu12"} & set(noise.packages)
        flags = draw(stated, "a", index).argv
        assert "--output_dir" not in flags
        assert "--report_to" not in flags


def test_nvml_noise_keeps_the_driver_branch_and_names_every_board() -> None:
    drivers = set()
    for index in range(20):
        noise = draw(NVML, "b", index)
        assert noise.driver in PATCHES["535"]
        drivers.add(noise.driver)
        assert len(noise.gpu_ids) == 2
        assert noise.gpu_ids[0] != noise.gpu_ids[1]
    assert len(drivers) > 1
    pinned = copy.deepcopy(NVML)
    pinned["a"]["driver"] = pinned["b"]["driver"] = "535.104.05"
    assert draw(pinned, "a", 0).driver is None  # a stated patch is the case's, not noise


def test_report_noise_fills_only_what_neither_side_states() -> None:
    for index in range(20):
        a, b = (draw(IMPORTED, side, index).report for side in ("a", "b"))
        for filled in (a, b):
            assert filled["driver"] in PATCHES["535"]  # the case states the branch only
            assert not {"torch", "cuda_build", "gpus"} & set(filled)
        # One distribution family and Python series on both sides, patch levels apart.
        assert a["os"].rsplit(".", 1)[0] == b["os"].rsplit(".", 1)[0]
        assert a["python"].rsplit(".", 1)[0] == b["python"].rsplit(".", 1)[0]
        family = next(d for d in DISTROS.values() if a["os"].split(" (")[0] in d["points"])
        assert family["glibc"] in a["platform"]
    stated = copy.deepcopy(IMPORTED)
    stated["a"]["facts"]["os"] = "Ubuntu 20.04.6 LTS (x86_64)"
    stated["b"]["facts"]["python"] = "3.8.10"
    for index in range(10):
        for side in ("a", "b"):
            filled = draw(stated, side, index).report
            assert "os" not in filled
            assert "python" not in filled


def test_report_noise_draws_one_python_series_across_a_torch_upgrade() -> None:
    upgraded = copy.deepcopy(IMPORTED)
    upgraded["a"]["facts"]["torch"] = "1.11.0+cu102"
    upgraded["b"]["facts"]["torch"] = "1.12.1+cu102"
    for index in range(10):
        a, b = (draw(upgraded, side, index).report for side in ("a", "b"))
        assert a["python"].rsplit(".", 1)[0] == b["python"].rsplit(".", 1)[0] == "3.8"


def test_report_noise_draws_one_python_series_across_two_stated_distributions() -> None:
    # Each side's distribution ships its own Python; the series filled in is still one for
    # both sides (the older one), else noise would write a minor Python step into the pair.
    moved = copy.deepcopy(IMPORTED)
    for side in ("a", "b"):
        for key in ("torch", "pip"):
            moved[side]["facts"].pop(key)
    moved["a"]["facts"]["os"] = "Ubuntu 18.04.5 LTS (x86_64)"  # a release DISTROS lacks
    moved["b"]["facts"]["os"] = "Ubuntu 20.04.1 LTS (x86_64)"
    for index in range(10):
        a, b = (draw(moved, side, index).report for side in ("a", "b"))
        assert a["python"].rsplit(".", 1)[0] == b["python"].rsplit(".", 1)[0]


def test_a_torch_release_stated_for_one_side_is_the_other_sides_stand_in() -> None:
    # The script prints "PyTorch version: N/A" only when torch does not import: a thread that
    # names one side's torch says nothing of the other's, so both report the one stated.
    one_sided = copy.deepcopy(IMPORTED)
    one_sided["b"]["facts"].pop("torch")
    stated = one_sided["a"]["facts"]["torch"].split("+")[0]
    for index in range(5):
        assert "torch" not in draw(one_sided, "a", index).report
        assert draw(one_sided, "b", index).report["torch"] == stated
    # The public release only: a local tag names the build, which the thread may set apart.
    one_sided["a"]["facts"]["torch"] = "1.11.0+cu115"
    assert draw(one_sided, "b", 0).report["torch"] == "1.11.0"
    for side in ("a", "b"):
        one_sided[side]["facts"].pop("torch", None)
    assert "torch" not in draw(one_sided, "b", 0).report


def test_a_posted_report_gets_no_noise() -> None:
    posted = copy.deepcopy(IMPORTED)
    posted["a"] = {"report": "any.txt"}
    assert draw(posted, "a", 0).report == {}
