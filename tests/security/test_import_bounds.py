"""Importers are bounded: each attack is planted in a copy of a real MLflow or W&B run (made
here by mlflow-skinny and wandb themselves) and run through the real CLI in a subprocess.

A link out of the run folder is never followed, YAML aliases are refused before they expand,
files over their kind's cap are skipped and named in the manifest, values are cut, a pipe never
blocks. Time and peak memory are those of the import process alone (os.wait4).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.unit.interop.importers.runs import make_mlflow_run, make_wandb_run

NETRC = "machine example.com login bob password hunter2-netrc-secret\n"
MAX_SECONDS = 10.0
MAX_RSS_BYTES = 300 * 1024 * 1024
MAX_OUTPUT_BYTES = 512 * 1024
# Nine references per level, nine levels: 9**9 (387 million) strings once expanded.
ALIAS_BOMB = "\n".join(
    ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
)


@dataclass
class Ran:
    code: int
    err: str
    seconds: float
    max_rss_bytes: int
    out: Path

    def manifest(self) -> dict[str, Any]:
        assert self.code == 0, self.err
        document: dict[str, Any] = json.loads(self.out.read_text(encoding="utf-8"))
        return document

    def not_read(self) -> dict[str, str]:
        notes: dict[str, str] = self.manifest()["imported_from"]["facts"].get("files_not_read", {})
        return notes


# Runs the import and reports its exit status, time and peak RSS. Linux carries a process's
# peak RSS across fork and exec, so a child of this (large) test process would report the test's
# peak: the import runs as the only child of this small launcher instead.
_LAUNCHER = """
import json, resource, subprocess, sys, time
start = time.monotonic()
try:
    code = subprocess.run(sys.argv[2:], timeout=float(sys.argv[1]), stdin=subprocess.DEVNULL).returncode
except subprocess.TimeoutExpired:
    code = -9
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "seconds": time.monotonic() - start, "rss": rss}))
"""


def envsnap_import(fmt: str, path: Path, out: Path, timeout: float = 60) -> Ran:
    """`python -m envsnap import FMT PATH -o OUT`, with its own time and peak RSS."""
    command = [sys.executable, "-m", "envsnap", "import", fmt, str(path), "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(timeout), *command],
        capture_output=True,
        text=True,
        timeout=timeout + 30,
        check=True,
    )
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    rss = measured["rss"] * (1 if sys.platform == "darwin" else 1024)  # KiB on Linux
    return Ran(measured["code"], done.stderr, measured["seconds"], rss, out)


def assert_bounded(ran: Ran) -> None:
    assert ran.code != -9, f"killed after the timeout: {ran.err}"
    assert ran.seconds < MAX_SECONDS, ran.seconds
    assert ran.max_rss_bytes < MAX_RSS_BYTES, ran.max_rss_bytes
    if ran.out.exists():
        assert ran.out.stat().st_size < MAX_OUTPUT_BYTES


def assert_refused(ran: Ran, message: str) -> None:
    assert_bounded(ran)
    assert ran.code == 2, ran.err
    lines = ran.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in ran.err, ran.err
    assert message in lines[0]


def section(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    """A section as built, or as kept in imported_from when its model needs more."""
    found: dict[str, Any] = manifest[name] or manifest["imported_from"]["sections"][name]
    return found


def write_large(path: Path, line: bytes, size: int) -> None:
    """`size` bytes of `line` repeated, written in chunks."""
    chunk = line * ((1 << 20) // len(line))
    with path.open("wb") as handle:
        for _ in range(size // len(chunk) + 1):
            handle.write(chunk)


@pytest.fixture(scope="module")
def real_mlflow_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mlflow", reason="mlflow is not installed (pip install mlflow-skinny)")
    run_dir, _ = make_mlflow_run(tmp_path_factory.mktemp("mlflow"))
    return run_dir


@pytest.fixture(scope="module")
def real_wandb_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("wandb", reason="wandb is not installed (pip install wandb)")
    pytest.importorskip("google.protobuf")
    run_dir, _ = make_wandb_run(tmp_path_factory.mktemp("wandb"))
    return run_dir


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A .netrc-like file outside every run folder."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".netrc").write_text(NETRC, encoding="utf-8")
    (home / "requirements.txt").write_text(f"hunter2-netrc-secret==1.0\n{NETRC}")
    return home / ".netrc"


@pytest.fixture
def mlflow_run(real_mlflow_run: Path, tmp_path: Path) -> Path:
    """A copy of the real run, in an experiment folder of its own, to plant an attack in."""
    copy = tmp_path / "mlruns" / real_mlflow_run.parent.name / real_mlflow_run.name
    shutil.copytree(real_mlflow_run, copy)
    return copy


@pytest.fixture
def wandb_run(real_wandb_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "wandb" / real_wandb_run.name
    shutil.copytree(real_wandb_run, copy)
    return copy


def _replace(path: Path, by_link_to: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(by_link_to)


# --- links out of the run folder ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "planted",
    [
        "artifacts/model/requirements.txt",
        "tags/mlflow.source.git.commit",
        "tags/mlflow.source.name",
        "artifacts/model",  # a linked folder holding a requirements.txt
        "tags",
    ],
)
def test_mlflow_link_out_of_the_run_is_not_followed(
    mlflow_run: Path, secret: Path, tmp_path: Path, planted: str
) -> None:
    target = secret.parent if planted in ("artifacts/model", "tags") else secret
    _replace(mlflow_run / planted, target)
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert_bounded(ran)
    assert "hunter2" not in ran.out.read_text(encoding="utf-8")
    assert ran.not_read()[f"{mlflow_run.name}/{planted}"].startswith("a symbolic link")
    if planted.startswith("artifacts"):  # what the link may have held is unknown, and why
        reason = section(ran.manifest(), "packages")["unknown"]["installed"]
        assert f"not read: {mlflow_run.name}/{planted}" in reason


@pytest.mark.slow
def test_mlflow_link_that_stays_inside_is_refused_too(mlflow_run: Path, tmp_path: Path) -> None:
    """The chosen rule: no link below the run folder is followed, wherever it points."""
    model = mlflow_run / "artifacts" / "model"
    (mlflow_run / "artifacts" / "copy").mkdir()
    (mlflow_run / "artifacts" / "copy" / "conda.yaml").symlink_to(model / "conda.yaml")
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert ran.not_read() == {
        f"{mlflow_run.name}/artifacts/copy/conda.yaml": (
            "a symbolic link; links inside the folder are not followed"
        )
    }


@pytest.mark.slow
@pytest.mark.parametrize("planted", ["files/requirements.txt", "files/diff.patch"])
def test_wandb_link_out_of_the_run_is_not_followed(
    wandb_run: Path, secret: Path, tmp_path: Path, planted: str
) -> None:
    _replace(wandb_run / planted, secret.parent / "requirements.txt")
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_bounded(ran)
    assert "hunter2" not in ran.out.read_text(encoding="utf-8")
    assert ran.not_read() == {planted: "a symbolic link; links inside the folder are not followed"}


@pytest.mark.slow
def test_wandb_linked_files_folder_is_not_followed(
    wandb_run: Path, secret: Path, tmp_path: Path
) -> None:
    outside = secret.parent / "files"
    shutil.move(wandb_run / "files", outside)
    (outside / "requirements.txt").write_text(f"hunter2-netrc-secret==1.0\n{NETRC}")
    (wandb_run / "files").symlink_to(outside)
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_refused(ran, "no wandb-metadata.json in this directory or its files/ folder")


@pytest.mark.slow
def test_a_link_the_user_names_is_followed(wandb_run: Path, tmp_path: Path) -> None:
    """wandb/latest-run is W&B's own link to the last run: the folder named is the user's."""
    latest = wandb_run.parent / "latest-run"
    latest.symlink_to(wandb_run, target_is_directory=True)
    ran = envsnap_import("wandb", latest, tmp_path / "out.json")
    assert ran.code == 0, ran.err
    assert ran.not_read() == {}


# --- YAML aliases ------------------------------------------------------------------------------


def _without_key(document: str, key: str) -> list[str]:
    """The lines of a top-level YAML mapping without `key` and the block under it."""
    kept: list[str] = []
    skipping = False
    for line in document.splitlines():
        if line and not line.startswith((" ", "-")):
            skipping = line.startswith(f"{key}:")
        if not skipping:
            kept.append(line)
    return kept


@pytest.mark.slow
@pytest.mark.parametrize(
    ("planted", "key"),
    [
        ("meta.yaml", "run_id"),  # str(run_id) would expand all of it
        ("artifacts/model/python_env.yaml", "python"),
        ("artifacts/model/conda.yaml", "dependencies"),  # a pip list of nine expansions
    ],
)
def test_mlflow_yaml_alias_bomb_is_refused(
    mlflow_run: Path, tmp_path: Path, planted: str, key: str
) -> None:
    path = mlflow_run / planted
    kept = _without_key(path.read_text(encoding="utf-8"), key)
    value = "[python=3.11, {pip: *a8}]" if key == "dependencies" else "*a9"
    path.write_text("\n".join([*kept, ALIAS_BOMB, f"{key}: {value}", ""]), encoding="utf-8")
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert_refused(ran, "anchors and aliases are not accepted")


# --- sizes ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_wandb_22_mb_requirements_is_skipped_and_noted(wandb_run: Path, tmp_path: Path) -> None:
    write_large(wandb_run / "files" / "requirements.txt", b"numpy==1.26.4\n", 22 * 1024 * 1024)
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_bounded(ran)
    assert ran.not_read() == {"files/requirements.txt": "larger than 4 MiB; not a requirements.txt"}
    packages = ran.manifest()["packages"]
    assert packages["installed"] == {}
    assert packages["unknown"]["installed"].startswith("files/requirements.txt not read")


@pytest.mark.slow
def test_mlflow_22_mb_requirements_is_skipped_and_noted(mlflow_run: Path, tmp_path: Path) -> None:
    requirements = mlflow_run / "artifacts" / "model" / "requirements.txt"
    write_large(requirements, b"numpy==1.26.4\n", 22 * 1024 * 1024)
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert_bounded(ran)
    name = f"{mlflow_run.name}/artifacts/model/requirements.txt"
    assert ran.not_read() == {name: "larger than 4 MiB; not a requirements.txt"}
    # conda.yaml still states the pins it holds; the reason names the file not read.
    packages = section(ran.manifest(), "packages")
    assert packages["installed"]["torch"]["version"] == "2.13.0"
    assert f"not read: {name}" in packages["unknown"]["installed"]


@pytest.mark.slow
def test_too_many_requirements_are_not_used(wandb_run: Path, tmp_path: Path) -> None:
    lines = "".join(f"p{index}==1\n" for index in range(25_000))  # 200 KiB: under the size cap
    (wandb_run / "files" / "requirements.txt").write_text(lines, encoding="utf-8")
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_bounded(ran)
    assert ran.not_read() == {"files/requirements.txt": "more than 20000 requirements; not used"}


@pytest.mark.slow
def test_mlflow_60_mb_command_tag_is_skipped_and_noted(mlflow_run: Path, tmp_path: Path) -> None:
    write_large(mlflow_run / "tags" / "mlflow.source.name", b"python train.py --x ", 60 << 20)
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert_bounded(ran)
    assert ran.manifest()["run"]["argv"] == []
    name = f"{mlflow_run.name}/tags/mlflow.source.name"
    assert ran.not_read() == {name: "larger than 1 MiB; not an MLflow tag"}


@pytest.mark.slow
def test_mlflow_long_command_tag_is_cut_with_a_marker(mlflow_run: Path, tmp_path: Path) -> None:
    command = "python train.py " + "--lr 0.1 " * 50_000  # 450 KB: under the tag cap
    (mlflow_run / "tags" / "mlflow.source.name").write_text(command, encoding="utf-8")
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json")
    assert_bounded(ran)
    (argv,) = ran.manifest()["run"]["argv"]
    assert argv.startswith("python train.py --lr 0.1")
    assert argv.endswith("…[truncated at 65536 characters]")
    assert len(argv) < 66_000


@pytest.mark.slow
def test_wandb_60_mb_metadata_is_refused(wandb_run: Path, tmp_path: Path) -> None:
    metadata = wandb_run / "files" / "wandb-metadata.json"
    document = json.loads(metadata.read_text(encoding="utf-8"))
    document["args"] = ["--x" * 20_000_000]
    metadata.write_text(json.dumps(document), encoding="utf-8")
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_refused(ran, "larger than 1 MiB; not a W&B wandb-metadata.json")


@pytest.mark.slow
def test_wandb_long_command_line_is_cut_with_a_marker(wandb_run: Path, tmp_path: Path) -> None:
    metadata = wandb_run / "files" / "wandb-metadata.json"
    document = json.loads(metadata.read_text(encoding="utf-8"))
    document["args"] = ["--lr=0.1"] * 90_000  # 1 MB of JSON: just under the cap
    metadata.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_bounded(ran)
    argv = ran.manifest()["run"]["argv"]
    assert sum(map(len, argv)) < 66_000
    assert argv[-1].endswith("…[truncated at 65536 characters]")


@pytest.mark.slow
def test_wandb_long_fields_are_cut_before_redaction(wandb_run: Path, tmp_path: Path) -> None:
    """Redacting a long URL or text costs seconds per MB: no field gets there at full length."""
    metadata = wandb_run / "files" / "wandb-metadata.json"
    document = json.loads(metadata.read_text(encoding="utf-8"))
    document["docker"] = "user:pass@" + "registry/" * 30_000  # 270 KB
    document["codePath"] = "a=b, " * 60_000  # 300 KB of assignments to redact
    metadata.write_text(json.dumps(document), encoding="utf-8")
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json")
    assert_bounded(ran)
    facts = ran.manifest()["imported_from"]["facts"]
    assert facts["wandb_codePath"].endswith("…[truncated at 65536 characters]")
    assert len(facts["wandb_docker"]) < 66_000


def test_collect_env_50_mb_line_is_refused(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_bytes(b"PyTorch version: 2.1.0\nOS: Ubuntu 22.04\nGPU models and configuration: ")
    with report.open("ab") as handle:
        handle.write(b"A" * (50 << 20))
    for fmt in ("collect-env", "auto"):
        ran = envsnap_import(fmt, report, tmp_path / "out.json")
        assert_refused(ran, "larger than 1 MiB; not a collect_env report")


def test_collect_env_long_lines_under_the_cap_finish(tmp_path: Path) -> None:
    """A GPU line that a lazy regex took minutes over, and a value wrapped over many lines."""
    report = tmp_path / "report.txt"
    gpu = "GPU 0: x" + " (UUID: x" * 50_000  # 450 KB, no closing parenthesis
    wrapped = "\n ".join(["Caching allocator config: a=b"] + ["c=d,"] * 60_000)
    head = "PyTorch version: 2.1.0\nIs debug build: False\nOS: Ubuntu 22.04\n"
    report.write_text(f"{head}GPU models and configuration:\n{gpu}\n{wrapped}\n", encoding="utf-8")
    ran = envsnap_import("collect-env", report, tmp_path / "out.json")
    assert_bounded(ran)
    assert ran.code == 0, ran.err


# --- pipes ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_mlflow_fifo_as_requirements_does_not_hang(mlflow_run: Path, tmp_path: Path) -> None:
    requirements = mlflow_run / "artifacts" / "model" / "requirements.txt"
    requirements.unlink()
    os.mkfifo(requirements)
    ran = envsnap_import("mlflow", mlflow_run, tmp_path / "out.json", timeout=20)
    assert_bounded(ran)
    name = f"{mlflow_run.name}/artifacts/model/requirements.txt"
    assert ran.not_read()[name] == "is a pipe, socket or device, expected a requirements.txt"


@pytest.mark.slow
@pytest.mark.parametrize("planted", ["files/requirements.txt", "files/diff.patch"])
def test_wandb_fifo_does_not_hang(wandb_run: Path, tmp_path: Path, planted: str) -> None:
    (wandb_run / planted).unlink(missing_ok=True)
    os.mkfifo(wandb_run / planted)
    ran = envsnap_import("wandb", wandb_run, tmp_path / "out.json", timeout=20)
    assert_bounded(ran)
    assert ran.not_read()[planted].startswith("is a pipe, socket or device")
