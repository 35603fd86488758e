"""The capture and nvml routes: one side is a real envsnap capture of the field job.

For one side of one draw the route lays out a machine in a temporary directory: the user's
home (named by the noise model), a real git repository at the checkout path holding the job
as `train.py` and a `.gitignore` (commit "base"; "changed" is a second commit that edits the
script; a dirty tree is an uncommitted edit of it, of the settings `dirty_sets` names where it
names them (edits.py); the noise model's untracked logs and
outputs beside it), the data files the job hashes in its ignored `data/` folder, and a site
directory on PYTHONPATH with real distributions planted for the
side's `packages`, the noise model's packages and, on the nvml route, the side's NVIDIA CUDA
library wheels. Then it runs the job in a fresh interpreter with a clean environment (the
side's `env`, the noise model's variables, HOME, PATH, PYTHONPATH) and reads the manifest the
job's in-job capture wrote. The route never edits that manifest.

A side that names a `torch` release runs in a virtual environment holding that torch and an
editable install of this checkout, found among the venvs `FIELD_TORCH_VENVS` lists (os.pathsep
between them), as one job run under two torch installs is run; any other side runs in this
interpreter. Its venv's path becomes a neutral one in the capture.

The nvml route adds the stand-in NVML's spec: the side's GPU files with the noise model's
UUIDs and PCI bus ids, its driver and the CUDA version the driver's branch reports.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.field.drivers import cuda_driver_version
from tests.field.edits import pin_in_script
from tests.field.noise import Noise, draw
from tests.field.planting import module_name, plant

HERE = Path(__file__).resolve().parent.parent
PROJECT_ROOT = HERE.parent.parent
JOB = HERE / "job.py"
GPUS_DIR = HERE / "gpus"
FAKE_NVML = HERE.parent / "fixtures" / "nvml" / "fake_nvml.py"
# Fixed identity and dates for the job repository's commits, so the same tree makes the same
# commit id on every side: a commit id differs only where the case changes the code.
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Field Job",
    "GIT_AUTHOR_EMAIL": "job@example.org",
    "GIT_COMMITTER_NAME": "Field Job",
    "GIT_COMMITTER_EMAIL": "job@example.org",
}
BASE_DATE = "2026-01-05T10:00:00+00:00"
CHANGED_DATE = "2026-01-06T10:00:00+00:00"
JOB_TIMEOUT_S = 300.0
Case = dict[str, Any]


@dataclass(frozen=True)
class Prepared:
    """One side laid out and ready to run."""

    root: Path
    repo: Path
    env: dict[str, str]
    argv: list[str]
    out: Path
    python: str = sys.executable


TORCH_VENVS = "FIELD_TORCH_VENVS"


def _torch_of(python: Path) -> str | None:
    done = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else None


@functools.cache
def torch_venv(release: str) -> Path:
    """The venv among $FIELD_TORCH_VENVS whose torch is `release`."""
    listed = [Path(p) for p in os.environ.get(TORCH_VENVS, "").split(os.pathsep) if p]
    for venv in listed:
        if _torch_of(venv / "bin" / "python") == release:
            return venv
    raise RuntimeError(
        f"no venv with torch {release} in ${TORCH_VENVS} ({os.pathsep.join(map(str, listed))}): "
        f"python -m venv <dir> && <dir>/bin/pip install torch=={release.partition('+')[0]} "
        "&& <dir>/bin/pip install -e <this checkout>"
    )


def neutral_venv(release: str) -> str:
    """The path a side's torch venv has in its capture."""
    return f"/home/user/venvs/torch-{release}"


def digest(case: Case, draw_index: int) -> str:
    """What a capture depends on: both sides' specs, the route, both sides' noise and the
    job's and stand-in's code. Stored in the capture's `extra` so a stale capture is found."""
    parts = {
        "route": case["route"],
        "a": case["a"],
        "b": case["b"],
        "noise": {side: draw(case, side, draw_index).as_dict() for side in ("a", "b")},
        "job": hashlib.sha256(JOB.read_bytes()).hexdigest(),
        "standin": hashlib.sha256((HERE / "standin.py").read_bytes()).hexdigest(),
        "gpus": {
            key: json.loads((GPUS_DIR / f"{key}.json").read_text(encoding="utf-8"))
            for side in ("a", "b")
            for key in case[side].get("gpus") or []
        },
    }
    if case["route"] == "nvml":
        # The stand-in answers through the project's fake binding: its code is an input too.
        parts["binding"] = hashlib.sha256(FAKE_NVML.read_bytes()).hexdigest()
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _git(repo: Path, *args: str, date: str = BASE_DATE) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        **GIT_IDENTITY,
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _edit(script: Path, value: int) -> None:
    """Change the job's logging interval: a real edit of the tracked script."""
    text, count = re.subn(
        r"^LOG_EVERY = \d+$",
        f"LOG_EVERY = {value}",
        script.read_text("utf-8"),
        count=1,
        flags=re.MULTILINE,
    )
    if count != 1:
        raise RuntimeError(f"{script}: no LOG_EVERY line to edit")
    script.write_text(text, encoding="utf-8")


def _repository(repo: Path, side: Case, noise: Noise, project: str) -> None:
    repo.mkdir(parents=True)
    shutil.copyfile(JOB, repo / "train.py")
    (repo / ".gitignore").write_text("data/\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", f"https://github.com/field-corpus/{project}.git")
    _git(repo, "add", "train.py", ".gitignore")
    _git(repo, "commit", "-q", "-m", "base")
    settings = side.get("repo") or {}
    if settings.get("commit", "base") == "changed":
        _edit(repo / "train.py", 1)
        _git(repo, "commit", "-q", "-am", "changed", date=CHANGED_DATE)
    if settings.get("dirty_sets"):
        job = side.get("job") or {}
        pin_in_script(repo / "train.py", {key: job[key] for key in settings["dirty_sets"]})
    elif settings.get("dirty"):
        _edit(repo / "train.py", 5)
    for path, text in noise.untracked.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _data(repo: Path, side: Case) -> dict[str, str]:
    """Data files with bytes that follow the content tag (equal tags, equal bytes), in the
    repository's ignored `data/` folder and named relative to it, as a job names its data."""
    directory = repo / "data"
    directory.mkdir()
    files: dict[str, str] = {}
    for name, tag in sorted((side.get("data") or {}).items()):
        line = f"field corpus data, content {tag}\n"
        (directory / name).write_text(line * 256, encoding="utf-8")
        files[name] = f"data/{name}"
    return files


def _nvml(case: Case, side: str, noise: Noise) -> dict[str, Any] | None:
    spec = case[side]
    if case["route"] != "nvml":
        return None
    boards = []
    for key, (uuid, pci) in zip(spec.get("gpus") or [], noise.gpu_ids, strict=True):
        board = json.loads((GPUS_DIR / f"{key}.json").read_text(encoding="utf-8"))
        board.pop("sources", None)
        boards.append({**board, "uuid": uuid, "pci_bus_id": pci})
    driver = noise.driver or str(spec["driver"])
    cuda = spec.get("cuda_driver") or cuda_driver_version(driver)
    if cuda is None:
        raise ValueError(f"{case['id']}.{side}: no CUDA version known for driver {driver}")
    return {"boards": boards, "driver": driver, "cuda_driver": cuda}


def prepare(case: Case, side: str, draw_index: int, root: Path) -> Prepared:
    """Lay out one side of one draw under `root` (an empty or missing directory)."""
    spec = case[side]
    noise = draw(case, side, draw_index)
    root.mkdir(parents=True, exist_ok=True)
    home = root / "home" / noise.user
    repo = home / noise.checkout
    home.mkdir(parents=True)
    # The remote names the project, the same on every side; the checkout folder may differ.
    _repository(repo, spec, noise, case["id"].split("-")[0])
    site = root / "site"
    site.mkdir()
    planted = {**noise.packages, **(spec.get("packages") or {}), **(spec.get("cuda_libs") or {})}
    job = dict(spec.get("job") or {})
    imports = set(job.pop("imports", []))
    for key in (spec.get("repo") or {}).get("dirty_sets", []):
        del job[key]  # the script's own uncommitted lines set it
    for name, version in sorted(planted.items()):
        plant(site, name, version, importable=name in imports)
    out = root / "manifest.json"
    job_spec = {
        "job": {**job, "imports": sorted(module_name(name) for name in imports)},
        "data": _data(repo, spec),
        "out": str(out),
        "label": case["id"],
        "extra": {
            "field_capture": {
                "case": case["id"],
                "draw": draw_index,
                "digest": digest(case, draw_index),
            }
        },
        "nvml": _nvml(case, side, noise),
        "device": spec.get("device", "cuda") if case["route"] == "nvml" else None,
        "project_root": str(PROJECT_ROOT),
    }
    spec_path = root / "job-spec.json"
    spec_path.write_text(json.dumps(job_spec, indent=1), encoding="utf-8")
    python = sys.executable
    if spec.get("torch"):
        python = str(torch_venv(spec["torch"]) / "bin" / "python")
    env = {
        "PATH": f"{Path(python).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "USER": noise.user,
        "LOGNAME": noise.user,
        "PYTHONPATH": str(site),
        "FIELD_JOB_SPEC": str(spec_path),
    }
    for name, value in noise.env.items():
        env[name] = value.replace("{home}", str(home)).replace("{root}", str(root))
    env.update(spec.get("env") or {})
    for name in ("TMPDIR",):
        if name in env:
            Path(env[name]).mkdir(parents=True, exist_ok=True)
    argv = [*(spec.get("job") or {}).get("argv", []), *noise.argv]
    return Prepared(root=root, repo=repo, env=env, argv=argv, out=out, python=python)


def run(prepared: Prepared, timeout_s: float = JOB_TIMEOUT_S) -> dict[str, Any]:
    """Run the job; the manifest document its capture wrote."""
    done = subprocess.run(
        [prepared.python, "train.py", *prepared.argv],
        cwd=prepared.repo,
        env=prepared.env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if done.returncode != 0 or not prepared.out.is_file():
        raise RuntimeError(
            f"field job failed in {prepared.repo} (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    document: dict[str, Any] = json.loads(prepared.out.read_text(encoding="utf-8"))
    return document


# Where a capture stands for a user's machine, this host's own paths (the checkout, its venv,
# the scratch folder each side is laid out in) would be facts of the machine that built the
# corpus, not of the case: the checkout becomes a neutral root, and the scratch prefix goes, so
# the home folders the noise model draws for each side are what remains.
NEUTRAL_ROOT = "/home/user/envsnap"
SCRATCH = re.compile(r"/[^\"]*?/field-capture-[A-Za-z0-9_]+/\d+-[ab]")


def neutral_paths(
    document: dict[str, Any], scratch: Path | None = None, torch: str | None = None
) -> dict[str, Any]:
    """The document with this host's paths replaced (see above), sealed again."""
    from envsnap.capturing.run import sealed

    text = json.dumps(document)
    if scratch is not None:
        text = text.replace(str(scratch), "")
    if torch is not None:
        text = text.replace(str(torch_venv(torch)), neutral_venv(torch))
    text = SCRATCH.sub("", text).replace(str(PROJECT_ROOT), NEUTRAL_ROOT)
    return sealed(json.loads(text))


def capture_side(case: Case, side: str, draw_index: int, workdir: Path) -> dict[str, Any]:
    """Prepare and run one side; the manifest document, with this host's paths neutral."""
    root = workdir / f"{draw_index}-{side}"
    document = run(prepare(case, side, draw_index, root))
    return neutral_paths(document, root, case[side].get("torch"))
