"""The README's commands run as written and print what the README shows, so it cannot drift.

The Quickstart's first command runs in a copy of this repository (a git repository of its
own) and makes and activates the copy's own `.venv`; pip is kept offline and installs only the
copy, since the test environment already holds the dependencies (the `.venv` the command makes
is laid beforehand so that it sees them). The tour's commands run one by one in an
empty directory, after the scripts the tour shows are written there; their output is compared
with the README's after normalising what changes from run to run (timestamps, digests, the
version, how many sections this host cannot fill, table column widths). The tour's captures skip the GPU and CUDA-library collectors, so the
comparison holds on a host with or without a GPU, and with a CPU or a CUDA build of torch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from envsnap._version import __version__

REPO_ROOT = Path(__file__).resolve().parents[2]
# Collectors whose output differs from host to host in ways the tour's diff and check show.
HOST_HARDWARE = ("gpu", "cuda_stack")
README = REPO_ROOT / "README.md"
FENCE = re.compile(r"^(`{3,})(\w*)\n(.*?)^\1\n", re.MULTILINE | re.DOTALL)
SCRIPT = re.compile(r"# ([\w-]+\.py)\n")  # the first line of a script block names its file


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _blocks(title: str, language: str) -> list[str]:
    return [m.group(3) for m in FENCE.finditer(_section(title)) if m.group(2) == language]


def _steps(block: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in steps]


def normalise(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(\+00:00|Z)?", "<time>", text)
    text = re.sub(r"sha256:[0-9a-f]{64}", "sha256:<digest>", text)
    text = text.replace(__version__, "<version>")
    text = re.sub(r"\d+ info\]", "N info]", text)  # sections this host could not fill
    text = re.sub(r"[━─]+", "─", text)
    text = re.sub(r" +", " ", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _clean_env(home: Path) -> dict[str, str]:
    """Only what running the commands needs: no result-relevant variables leak in."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8", "TMPDIR": str(home)}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _tour() -> list[tuple[str, str]]:
    """(language, text) of the tour's fenced blocks, in order."""
    return [(m.group(2), m.group(3)) for m in FENCE.finditer(_section("A five-minute tour"))]


def test_the_tour_prints_what_the_readme_shows(tmp_path: Path) -> None:
    blocks = _tour()
    assert sum(language == "console" for language, _ in blocks) >= 5, "the tour lost its blocks"
    env = _clean_env(tmp_path)
    work = tmp_path / "tour"
    work.mkdir()
    for language, block in blocks:
        script = SCRIPT.match(block)
        if language == "python" and script:  # a file the following commands run
            (work / script.group(1)).write_text(block, encoding="utf-8")
        if language != "console":
            continue
        for command, expected in _steps(block):
            done = _bash(command, work, env)
            assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
            assert normalise(done.stdout) == normalise(expected), command
    # What the tour prints must not depend on this host's GPUs, driver or CUDA libraries (or on
    # whether its torch is a CPU or a CUDA build): its captures leave those collectors out.
    manifests = sorted(work.glob("*.json"))
    assert manifests, "the tour captured nothing"
    for path in manifests:
        document = json.loads(path.read_text(encoding="utf-8"))
        for name in HOST_HARDWARE:
            assert document.get(name) is None, f"{path.name} records this host's {name}"
            assert name not in document["collectors"], f"{path.name} ran the {name} collector"


def _copy_of_the_repository(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    identity = ["-c", "user.name=readme", "-c", "user.email=readme@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-q", "-m", "copy"]):
        subprocess.run(["git", *args], cwd=target, check=True, capture_output=True)
    return target


def _venv_seeing_this_environment(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    python = path / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    lines = [f"import site; site.addsitedir({p!r})" for p in outer]
    Path(site, "outer_env.pth").write_text("\n".join(lines) + "\n")
    return path / "bin"


def _tree_state(repo: Path) -> list[str]:
    """git status, ignored files included, less the interpreter's bytecode caches."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=repo, capture_output=True, text=True
    ).stdout
    return [line for line in status.splitlines() if "__pycache__" not in line]


VENV_STEP = "python3 -m venv .venv && . .venv/bin/activate && "


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="the Quickstart is a POSIX shell command")
def test_the_quickstart_installs_into_its_venv_and_captures(tmp_path: Path) -> None:
    first, second = (block.strip() for block in _blocks("Quickstart", "bash"))
    assert first.startswith(VENV_STEP), "the Quickstart must start with its own venv"
    assert "pip install -e ." in first
    assert second == "bash .ci/run"
    assert "bash .ci/test" in (REPO_ROOT / ".ci" / "run").read_text()
    copy = _copy_of_the_repository(tmp_path / "copy")
    before = _tree_state(copy)
    env = _clean_env(tmp_path / "home")
    (tmp_path / "home").mkdir()
    env.pop("PYTHONPATH", None)  # the copy's own install must be the envsnap that runs
    # `python3 -m venv .venv` keeps the site-packages of a venv that is already there, so the
    # one laid here (seeing this environment's packages) becomes the Quickstart's. The python3
    # found first is this interpreter's, so both venvs have the same site-packages directory.
    venv = copy / ".venv"
    _venv_seeing_this_environment(venv)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    # Offline: the dependencies are already importable; pip builds and installs only the copy.
    env.update(PIP_NO_INDEX="1", PIP_NO_DEPS="1", PIP_NO_BUILD_ISOLATION="0")
    done = _bash(first, copy, env)
    assert done.returncode == 0, f"{first}\n{done.stdout}\n{done.stderr}"
    assert "sections" in done.stdout and "code" in done.stdout
    manifests = list((tmp_path / "home").glob("*/run.json"))
    assert len(manifests) == 1, "the manifest goes into a new temporary directory"
    python = json.loads(manifests[0].read_text(encoding="utf-8"))["python"]
    assert python["in_venv"] is True
    assert Path(python["prefix"]).resolve() == venv.resolve(), "captured outside the .venv"
    assert (venv / "bin" / "envsnap").is_file(), "envsnap was not installed into the .venv"
    assert sorted(_tree_state(copy)) == sorted([*before, "!! .venv/"]), "it touched the tree"
