"""`envsnap capture | show | verify | schema` as a user runs them: real processes, real repos."""

from __future__ import annotations

import json
import os
import random
import signal
import string
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors import COLLECTORS
from envsnap.manifest.model import load
from envsnap.manifest.sealed import verify_document
from tests.helpers import REPO_ROOT, CliResult, git
from tests.helpers.schemas import WRITES_PUBLISHED_SCHEMAS

RunProcess = Callable[..., CliResult]
MakeRepo = Callable[..., Path]
FOUNDATION = "code,python,packages,system,env"
_RNG = random.Random(7)


def _rand(count: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(count))


@pytest.mark.slow
def test_capture_show_verify_schema(run_cli_process: RunProcess, make_repo: MakeRepo) -> None:
    repo = make_repo()
    out = repo / "m.json"
    captured = run_cli_process("capture", "-o", str(out), "--label", "baseline", cwd=repo)
    assert captured.code == 0, captured.err
    assert captured.out == ""
    manifest = load(out)
    assert manifest.run.label == "baseline"
    assert manifest.code is not None and manifest.code.dirty is False
    assert manifest.python is not None and manifest.packages is not None
    assert manifest.system is not None and manifest.env is not None
    assert set(manifest.collectors) == set(COLLECTORS)

    shown = run_cli_process("show", str(out), cwd=repo)
    assert shown.code == 0 and shown.err == ""
    assert manifest.code.commit[:12] in shown.out and "baseline" in shown.out

    verified = run_cli_process("verify", str(out), cwd=repo)
    assert verified.code == 0 and verified.out.startswith("OK: ")

    schema = run_cli_process("schema")
    assert schema.code == 0
    assert json.loads(schema.out)["title"] == "envsnap manifest"
    if WRITES_PUBLISHED_SCHEMAS:
        assert schema.out == (REPO_ROOT / "schemas" / "manifest.v1.json").read_text(
            encoding="utf-8"
        )


@pytest.mark.slow
def test_capture_to_stdout_and_verify_detects_one_edited_value(
    run_cli_process: RunProcess, make_repo: MakeRepo
) -> None:
    repo = make_repo()
    captured = run_cli_process("capture", "--only", "python,env", cwd=repo)
    assert captured.code == 0, captured.err
    document = json.loads(captured.out)
    assert verify_document(document)[0]
    path = repo / "edited.json"
    document["python"]["version"] = "0.0.1"
    path.write_text(json.dumps(document, indent=2, sort_keys=True))
    result = run_cli_process("verify", str(path))
    assert result.code == 1 and "content was altered" in result.err


def _masked(document: dict[str, Any]) -> dict[str, Any]:
    """The document without its volatile fields: time, durations, pid, and the digest."""
    masked = json.loads(json.dumps(document))
    for key in ("created_at", "digest"):
        masked.pop(key)
    masked["run"].pop("pid")
    for record in masked["collectors"].values():
        record.pop("duration_ms")
    return masked


@pytest.mark.slow
def test_two_captures_in_a_row_differ_only_in_volatile_fields(
    run_cli_process: RunProcess, make_repo: MakeRepo
) -> None:
    repo = make_repo()
    (repo / "requirements.txt").write_text("torch==2.3.0\n")
    (repo / "notes.txt").write_text("untracked\n")
    documents = []
    for _ in range(2):
        # The same command line twice: argv is part of the record.
        result = run_cli_process("capture", "--only", FOUNDATION, "-o", "../m.json", cwd=repo)
        assert result.code == 0, result.err
        documents.append(json.loads((repo.parent / "m.json").read_text()))
    a, b = documents
    assert a["run"]["pid"] != b["run"]["pid"]
    assert a["digest"] != b["digest"]
    assert _masked(a) == _masked(b)


def _plant_secrets(repo: Path) -> tuple[dict[str, str], list[str], list[str]]:
    """Environment, argv and git remotes carrying secrets; returns (env, argv, secrets)."""
    tokens = {
        "hf": "hf_" + _rand(34),
        "hf_org": "api_org_" + _rand(30),
        "ghp": "ghp_" + _rand(36),
        "ghs": "ghs_" + _rand(36),
        "github_pat": "github_pat_" + _rand(22) + "_" + _rand(59),
        "sk": "sk-" + _rand(48),
        "sk_proj": "sk-proj-" + _rand(40),
        "sk_ant": "sk-ant-api03-" + _rand(40),
        "akia": "AKIA" + _rand(16, string.ascii_uppercase + string.digits),
        "xoxb": "xoxb-" + _rand(12, string.digits) + "-" + _rand(24),
        "xoxp": "xoxp-" + _rand(12, string.digits) + "-" + _rand(24),
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ" + _rand(16) + "." + _rand(43),
        "glpat": "glpat-" + _rand(20),
        "asia": "ASIA" + _rand(16, string.ascii_uppercase + string.digits),
        "npm": "npm_" + _rand(36),
        "google": "AIza" + _rand(35),
    }
    plain = {name: f"plain{name}{_rand(16)}" for name in "abcdefghij"}
    url_pw = {name: f"pw{name}{_rand(12)}" for name in ("env", "argv", "remote1", "remote2")}
    env = {
        **os.environ,
        # name-flagged, inside collected families
        "HF_TOKEN": tokens["hf"],
        "HF_API_KEY": plain["a"],
        "TORCH_SECRET": plain["b"],
        "NCCL_PASSWORD": plain["c"],
        "CUDA_CREDENTIALS": plain["d"],
        "TRANSFORMERS_AUTH": plain["e"],
        "HF_HUB_PRIVATE_KEY": plain["f"],
        # format-flagged, under harmless names inside collected families
        "OMP_PLACES": tokens["ghp"],
        "MKL_NOTE": f"see {tokens['github_pat']}",
        "XLA_FLAGS": f"--xla_dump_to=/tmp --api-key={tokens['sk']}",
        "TF_VAR": tokens["akia"],
        "HF_SLACK": tokens["xoxb"],
        "NVIDIA_NOTE": tokens["jwt"],
        "TOKENIZERS_MODEL_URL": f"https://u:{url_pw['env']}@hub.example.com/m",
        "TORCH_HUB_URL": f"https://hub.example.com/x?token={plain['g']}&y=1",
        "PYTORCH_ORG": tokens["hf_org"],
        "CUDA_NOTE": f"session {tokens['asia']}",
        "HF_NPM": tokens["npm"],
        "TF_GOOGLE": tokens["google"],
        "NCCL_AUTHORIZATION": f"Bearer {plain['h']}",
        "OMP_DB_PASSWD": plain["i"],
        # outside the families (never collected; must still never appear)
        "WANDB_API_KEY": tokens["sk_proj"],
        "GITLAB_TOKEN": tokens["glpat"],
        # look-alikes that must be kept
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
    }
    git(repo, "remote", "add", "origin", f"https://alice:{url_pw['remote1']}@github.com/o/r.git")
    git(repo, "remote", "add", "bot", f"https://{tokens['ghs']}@github.com/o/r.git")
    git(repo, "remote", "add", "lab", f"https://oauth2:{url_pw['remote2']}@gitlab.com/o/r.git")
    argv = [
        "--hf-token",
        tokens["xoxp"],
        f"--openai-key={tokens['sk_ant']}",
        f"--secret={plain['j']}",
        f"--db=postgres://trainer:{url_pw['argv']}@db.example.com/runs",
    ]
    secrets = [*tokens.values(), *plain.values(), *url_pw.values()]
    return env, argv, secrets


_TRAIN_SCRIPT = """
import sys
import envsnap
envsnap.capture(sys.argv[1], only=sys.argv[2].split(","), label="job " + sys.argv[3])
"""


@pytest.mark.slow
def test_planted_secrets_never_reach_any_output(
    run_cli_process: RunProcess, make_repo: MakeRepo
) -> None:
    repo = make_repo()
    env, argv, secrets = _plant_secrets(repo)
    assert len(secrets) >= 30
    manifest_path = repo.parent / "cli.json"
    label = argv[1]
    cli = run_cli_process("capture", "-o", str(manifest_path), "--label", label, cwd=repo, env=env)
    assert cli.code == 0, cli.err
    stdout = run_cli_process("capture", "--only", FOUNDATION, cwd=repo, env=env)
    (repo / "train.py").write_text(_TRAIN_SCRIPT)
    job_path = repo.parent / "job.json"
    job = subprocess.run(
        [sys.executable, "train.py", str(job_path), FOUNDATION, label, *argv],
        cwd=repo,
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )
    shown = run_cli_process("show", str(manifest_path), env=env)
    outputs = {
        "cli manifest": manifest_path.read_bytes(),
        "job manifest": job_path.read_bytes(),
        "stdout manifest": stdout.out.encode(),
        "stderr": (cli.err + stdout.err + shown.err).encode() + job.stderr + job.stdout,
        "show": shown.out.encode(),
    }
    for where, data in outputs.items():
        leaked = [secret for secret in secrets if secret.encode() in data]
        assert leaked == [], f"{len(leaked)} secret(s) leaked into the {where}"

    for path in (manifest_path, job_path):
        manifest = load(path)
        assert manifest.env is not None and manifest.code is not None
        variables = manifest.env.variables
        assert variables["TOKENIZERS_PARALLELISM"] == "false"
        assert variables["HF_HUB_DISABLE_IMPLICIT_TOKEN"] == "1"
        assert variables["HF_TOKEN"] == "<redacted>"
        assert "WANDB_API_KEY" not in variables
        assert {r.name: r.url for r in manifest.code.remotes}["origin"] == (
            "https://<redacted>@github.com/o/r.git"
        )
    job_manifest = load(job_path)
    assert job_manifest.run.argv[-5:-3] == ["--hf-token", "<redacted>"]
    assert job_manifest.run.argv[-1] == "--db=postgres://<redacted>@db.example.com/runs"


@pytest.mark.slow
def test_git_missing_from_path(
    run_cli_process: RunProcess, make_repo: MakeRepo, no_git_env: dict[str, str]
) -> None:
    repo = make_repo()
    out = repo.parent / "m.json"
    result = run_cli_process(
        "capture", "-o", str(out), "--only", FOUNDATION, cwd=repo, env=no_git_env
    )
    assert result.code == 0, result.err
    manifest = load(out)
    assert manifest.code is None
    record = manifest.collectors["code"]
    assert record.status == "skipped"
    assert record.reason is not None and "git executable not found" in record.reason
    # Everything else still ran, and packages still found the lock-file root without git.
    assert all(manifest.collectors[n].status == "ok" for n in ("python", "packages", "env"))
    assert manifest.packages is not None and Path(manifest.packages.project_root or "") == repo
    assert verify_document(json.loads(out.read_text()))[0]


@pytest.mark.slow
def test_strict_exits_1_when_a_collector_errors(
    run_cli_process: RunProcess, make_repo: MakeRepo
) -> None:
    repo = make_repo()
    (repo / ".git" / "HEAD").write_text("garbage\n")  # corrupt: the code collector errors
    out = repo.parent / "m.json"
    lenient = run_cli_process("capture", "--only", "code,python", "-o", str(out), cwd=repo)
    assert lenient.code == 0
    assert lenient.err.strip() == "envsnap: collectors failed: code"
    manifest = load(out)
    assert manifest.collectors["code"].status == "error"
    assert manifest.collectors["python"].status == "ok"
    strict = run_cli_process("capture", "--only", "code,python", "--strict", cwd=repo)
    assert strict.code == 1
    assert json.loads(strict.out)["collectors"]["code"]["status"] == "error"
    clean = run_cli_process("capture", "--only", "python,env", "--strict", cwd=repo)
    assert clean.code == 0


@pytest.mark.slow
def test_only_skip_and_unknown_names(run_cli_process: RunProcess, clean_cwd: Path) -> None:
    only = run_cli_process("capture", "--only", "python", "--only", "env", cwd=clean_cwd)
    assert only.code == 0
    document = json.loads(only.out)
    assert document["tool"]["collectors_requested"] == ["python", "env"]
    assert set(document["collectors"]) == {"python", "env"}
    assert document["code"] is None and document["packages"] is None

    skip = run_cli_process("capture", "--skip", "packages,code", cwd=clean_cwd)
    assert skip.code == 0
    requested = json.loads(skip.out)["tool"]["collectors_requested"]
    assert "packages" not in requested and "code" not in requested and "env" in requested

    for flag in ("--only", "--skip"):
        bad = run_cli_process("capture", flag, "python,gpus", cwd=clean_cwd)
        assert bad.code == 2
        assert bad.out == ""
        assert bad.err.splitlines() == [bad.err.strip()]
        assert "unknown collector 'gpus'" in bad.err and "Traceback" not in bad.err


@pytest.mark.slow
def test_bad_input_in_a_real_process_is_one_line(
    run_cli_process: RunProcess, tmp_path: Path
) -> None:
    binary = tmp_path / "blob.json"
    binary.write_bytes(bytes(range(256)) * 16)
    for args in (["show", str(binary)], ["verify", str(tmp_path)], ["verify", "missing.json"]):
        result = run_cli_process(*args, cwd=tmp_path)
        assert result.code == 2
        assert len(result.err.splitlines()) == 1 and "Traceback" not in result.err


@pytest.mark.slow
def test_unreadable_lock_file_is_recorded_and_capture_goes_on(
    run_cli_process: RunProcess, make_repo: MakeRepo
) -> None:
    if not Path("/proc/self/mem").exists():
        pytest.skip("needs /proc/self/mem, a file whose reads fail even for root")
    repo = make_repo()
    (repo / "requirements.txt").symlink_to("/proc/self/mem")
    (repo / "uv.lock").write_text("version = 1\n")
    result = run_cli_process("capture", "--only", FOUNDATION, cwd=repo)
    assert result.code == 0, result.err
    document = json.loads(result.out)
    packages = document["packages"]
    assert document["collectors"]["packages"]["status"] == "ok"
    assert [(f["path"], f["sha256"] is None) for f in packages["lock_files"]] == [
        ("requirements.txt", True),
        ("uv.lock", False),
    ]
    assert packages["unknown"]["lock_files.requirements.txt"].startswith("cannot read:")


@pytest.mark.slow
def test_kill_during_capture_leaves_no_partial_file(make_repo: MakeRepo) -> None:
    """SIGKILL at several moments: the target is absent or a complete, verified manifest."""
    repo = make_repo()
    target = repo.parent / "killed" / "m.json"
    target.parent.mkdir()
    outcomes = set()
    for delay in (0.05, 0.2, 0.4, 0.6, 0.8, 1.2):
        target.unlink(missing_ok=True)
        child = subprocess.Popen(
            [sys.executable, "-m", "envsnap", "capture", "-o", str(target)],
            cwd=repo,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        assert [p.name for p in target.parent.iterdir()] in ([], ["m.json"])
        if target.exists():
            assert verify_document(json.loads(target.read_bytes()))[0]
            outcomes.add("complete")
        else:
            outcomes.add("absent")
    assert "absent" in outcomes  # at least the earliest kill landed before the write


@pytest.mark.slow
def test_capture_path_imports_no_torch_numpy_or_deepdiff(make_repo: MakeRepo) -> None:
    repo = make_repo()
    script = (
        "import sys\n"
        "from envsnap.cli import main\n"
        "try:\n"
        "    main(['capture', '-o', 'm.json'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(sorted(m for m in ('torch', 'numpy', 'deepdiff') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "[]"
    assert (repo / "m.json").is_file()


@pytest.mark.slow
def test_undecodable_environment_bytes_do_not_break_capture(
    run_cli_process: RunProcess, clean_cwd: Path
) -> None:
    env = {**os.environ, "TORCH_ODD": os.fsdecode(b"\xff\xfe-value")}
    result = run_cli_process("capture", "--only", "env", "-o", "m.json", cwd=clean_cwd, env=env)
    assert result.code == 0, result.err
    manifest = load(clean_cwd / "m.json")
    assert manifest.env is not None
    assert manifest.env.variables["TORCH_ODD"] == "\\xff\\xfe-value"
    assert run_cli_process("verify", "m.json", cwd=clean_cwd).code == 0
