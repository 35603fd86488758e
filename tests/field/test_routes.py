"""The routes build pairs the way a real user would: real captures of a real torch job in a
real git repository, collect_env reports through envsnap's importer. Only the GPU is faked
(the NVML stand-in)."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff import diff_documents
from envsnap.manifest.model import manifest_from_document
from envsnap.manifest.sealed import verify_document
from tests.field.capture import current
from tests.field.drivers import PATCHES
from tests.field.noise import draw
from tests.field.pairs import NotCaptured, pair, read_captured, write_captured
from tests.field.routes.capture import capture_side, digest, prepare
from tests.field.routes.imported import import_side, report_text
from tests.field.synthetic import IMPORTED, NVML, case

REAL_REPORTS = Path(__file__).resolve().parent.parent / "fixtures" / "collect_env" / "real"
Doc = dict[str, Any]


@pytest.fixture(scope="module")
def nvml_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Doc, Doc]:
    workdir = tmp_path_factory.mktemp("nvml")
    return capture_side(NVML, "a", 0, workdir), capture_side(NVML, "b", 0, workdir)


def test_nvml_route_records_the_gpu_files_driver_and_cuda_wheels(
    nvml_pair: tuple[Doc, Doc],
) -> None:
    a, b = nvml_pair
    assert [d["name"] for d in a["gpu"]["devices"].values()] == ["NVIDIA A100-SXM4-80GB"]
    assert [d["compute_capability"] for d in b["gpu"]["devices"].values()] == ["9.0", "9.0"]
    hashes = [d["uuid_hash"] for d in b["gpu"]["devices"].values()]
    assert len(set(hashes)) == 2  # the noise model's board ids, one per board
    for doc, side in ((a, "a"), (b, "b")):
        assert doc["gpu"]["driver_version"] == draw(NVML, side, 0).driver
        assert doc["gpu"]["driver_version"] in PATCHES["535"]
        assert doc["gpu"]["cuda_driver_version"] == "12.2"
    assert a["packages"]["installed"]["nvidia-cudnn-cu12"]["version"] == "9.1.0.70"
    copies = b["cuda_stack"]["libraries"]["cudnn"]["copies"]
    assert [(c["package"], c["version"]) for c in copies] == [("nvidia-cudnn-cu12", "9.5.1.17")]


def test_every_gpu_file_gives_a_gpu_section_what_no_source_states_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board file leaves a value no public source states as null (the RTX A6000's memory):
    the stand-in then answers as NVML does for a query it cannot serve, and the collector
    records the rest."""
    import sys

    from envsnap.capturing.collectors.gpu import collect
    from tests.field.routes.capture import GPUS_DIR
    from tests.field.standin import standin
    from tests.helpers import capture_context

    for path in sorted(GPUS_DIR.glob("*.json")):
        board = json.loads(path.read_text(encoding="utf-8"))
        board.pop("sources", None)
        board.update(uuid="GPU-00000000-0000-0000-0000-000000000001", pci_bus_id="0:01:00.0")
        spec = {"boards": [board], "driver": "535.104.05", "cuda_driver": 12020}
        monkeypatch.setitem(sys.modules, "pynvml", standin(spec))
        device = collect(capture_context(Path.cwd())).devices["0"]
        assert device.name == board["name"], path.name
        if board["memory_total_mib"] is None:
            assert device.memory_total_bytes is None
        else:
            assert device.memory_total_bytes == board["memory_total_mib"] * 1024 * 1024


def test_capture_route_applies_the_sides_job_settings(nvml_pair: tuple[Doc, Doc]) -> None:
    a, b = nvml_pair
    assert a["env"]["variables"]["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert "CUBLAS_WORKSPACE_CONFIG" not in b["env"]["variables"]
    assert a["torch"]["num_threads"] == 1
    assert a["torch"]["deterministic"]["algorithms"] is True
    assert (a["torch"]["sdpa"]["cudnn"], b["torch"]["sdpa"]["cudnn"]) == (False, True)
    assert a["precision"]["amp_dtype"] == "bfloat16"
    assert a["parallel"]["dataloader"]["batch_size"] == 4
    assert a["parallel"]["dataloader"]["sampler"]["class_name"].endswith("RandomSampler")
    assert a["seeds"]["master_seed"] == 0
    assert a["run"]["argv"][1:3] == ["--lr", "0.05"]
    assert a["packages"]["installed"]["transformers"]["version"] == "4.46.0"
    assert b["packages"]["installed"]["transformers"]["version"] == "4.47.0"
    # The package side A's job imports is recorded as imported; B's job never imported it.
    imported = [doc["packages"]["installed"]["transformers"]["imported"] for doc in (a, b)]
    assert imported == [True, False]
    for name in draw(NVML, "a", 0).packages:
        assert name in a["packages"]["installed"]


def test_capture_route_builds_a_real_repository(nvml_pair: tuple[Doc, Doc]) -> None:
    a, b = nvml_pair
    assert a["code"]["dirty"] is False
    assert b["code"]["dirty"] is True
    assert a["code"]["commit"] != b["code"]["commit"]  # b is at the "changed" commit
    assert a["code"]["remotes"] == b["code"]["remotes"]
    assert a["code"]["repo_root"].endswith(draw(NVML, "a", 0).checkout)
    digests = [d["data"]["items"]["train.txt"]["root"] for d in (a, b)]
    assert digests[0] != digests[1]  # content tags v1 and v2


def test_captures_are_sealed_and_carry_the_case_digest(nvml_pair: tuple[Doc, Doc]) -> None:
    for doc in nvml_pair:
        assert verify_document(doc)[0]
        manifest_from_document(doc, "capture")
        assert doc["extra"]["field_capture"]["digest"] == digest(NVML, 0)
        assert doc["run"]["label"] == NVML["id"]
    report = diff_documents(*nvml_pair, target="close")
    assert "hw.gpu" in {finding.rule for finding in report.findings}


def test_a_same_tree_makes_the_same_commit_on_every_side(tmp_path: Path) -> None:
    plain = case(NVML, route="capture")
    for side in ("a", "b"):
        for key in ("gpus", "driver", "cuda_libs"):
            plain[side].pop(key)
    plain["b"] = copy.deepcopy(plain["a"])
    sides = [prepare(plain, side, 1, tmp_path / side) for side in ("a", "b")]
    heads = [
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=p.repo, capture_output=True, text=True, check=True
        ).stdout
        for p in sides
    ]
    assert heads[0] == heads[1]
    assert sides[0].repo != sides[1].repo  # noise: another user, another checkout path
    spec = json.loads(Path(sides[0].env["FIELD_JOB_SPEC"]).read_text(encoding="utf-8"))
    assert spec["nvml"] is None  # no GPU on the capture route
    assert spec["data"] == {"train.txt": "data/train.txt"}


def test_imported_route_renders_with_noise_and_imports(tmp_path: Path) -> None:
    text = report_text(IMPORTED, "a", 0)
    noise = draw(IMPORTED, "a", 0).report
    assert f"Nvidia driver version: {noise['driver']}" in text
    assert f"Python platform: {noise['platform']}" in text
    doc = import_side(IMPORTED, "a", 0, tmp_path)
    assert doc["gpu"]["driver_version"] == noise["driver"]
    assert verify_document(doc)[0]
    a, b = pair(IMPORTED, 0)
    report = diff_documents(a, b, target="close")
    # The GPU reached the record: the top finding rests on it, and the swap itself is reported.
    assert any(e.path.startswith("gpu.") for e in report.findings[0].evidence)
    assert "hw.gpu" in [f.rule for f in report.findings if f.severity != "info"]


def test_a_posted_report_is_imported_verbatim(tmp_path: Path) -> None:
    posted = copy.deepcopy(IMPORTED)
    posted["a"] = {"report": "pytorch-52515_titan_xp.txt"}
    path = REAL_REPORTS / "pytorch-52515_titan_xp.txt"
    assert report_text(posted, "a", 2, REAL_REPORTS) == path.read_text(encoding="utf-8")
    doc = import_side(posted, "a", 2, tmp_path, REAL_REPORTS)
    assert [d["name"] for d in doc["gpu"]["devices"].values()] == ["TITAN Xp", "TITAN Xp"]


def test_stored_captures_are_read_back_and_checked_for_staleness(
    nvml_pair: tuple[Doc, Doc], tmp_path: Path
) -> None:
    with pytest.raises(NotCaptured):
        pair(NVML, 0, tmp_path)
    for side, doc in zip("ab", nvml_pair, strict=True):
        write_captured(tmp_path / NVML["id"] / "0" / f"{side}.json.gz", doc)
    assert pair(NVML, 0, tmp_path) == nvml_pair
    assert read_captured(tmp_path / NVML["id"] / "0" / "a.json.gz") == nvml_pair[0]
    assert current(NVML, 0, tmp_path)
    edited = copy.deepcopy(NVML)
    edited["b"]["job"]["threads"] = 2
    assert not current(edited, 0, tmp_path)


def _fake_venv(root: Path, release: str) -> Path:
    """A venv-shaped folder whose python answers `release` to the route's torch question."""
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\necho '{release}'\n", encoding="utf-8")
    python.chmod(0o755)
    return root


def test_a_side_naming_a_torch_release_runs_in_the_venv_holding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.field.routes import capture as route

    other = _fake_venv(tmp_path / "other", "9.8.0+cpu")
    wanted = _fake_venv(tmp_path / "wanted", "9.9.0+cu999")
    monkeypatch.setenv(route.TORCH_VENVS, f"{other}:{wanted}")
    route.torch_venv.cache_clear()
    side = case(NVML, route="capture", a={"torch": "9.9.0+cu999"}, b={})
    prepared = prepare(side, "a", 0, tmp_path / "side-a")
    assert prepared.python == str(wanted / "bin" / "python")
    assert prepared.env["PATH"].startswith(f"{wanted / 'bin'}:")
    assert prepare(side, "b", 0, tmp_path / "side-b").python != prepared.python
    # Its path is the machine's, not the case's: the capture holds a neutral one.
    document = {"cuda_stack": {"torch_path": f"{wanted}/lib/python3.11/site-packages/torch"}}
    text = json.dumps(route.neutral_paths(document, torch="9.9.0+cu999"))
    assert str(wanted) not in text and "/home/user/venvs/torch-9.9.0+cu999/lib" in text
    route.torch_venv.cache_clear()


def test_a_torch_release_no_listed_venv_holds_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.field.routes import capture as route

    monkeypatch.setenv(route.TORCH_VENVS, str(_fake_venv(tmp_path / "v", "9.8.0+cpu")))
    route.torch_venv.cache_clear()
    with pytest.raises(RuntimeError, match=r"no venv with torch 9\.9\.0\+cu999 in \$FIELD_TORCH"):
        route.torch_venv("9.9.0+cu999")
    route.torch_venv.cache_clear()
