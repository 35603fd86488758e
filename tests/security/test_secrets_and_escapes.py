"""Attacks on what a manifest keeps and on what `export patch` prints, run through the real CLI.

Each secret is planted where a user or a tracker really puts it (the environment, the command
line, the config file, the dirty-tree patch, an imported MLflow or W&B record), a real capture
or import runs in a subprocess, and the whole output file is searched for the secret's bytes.
Commit hashes and digests share a secret's shape and must survive untouched.

Key-shaped values are built at run time, so no secret-looking literal sits in the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import pty
import random
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, git

_RNG = random.Random(20260501)
HEX = "0123456789abcdef"
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _draw(alphabet: str, count: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(count))


SERVICE_KEY = _draw(HEX, 40)  # a 40-hex key: the shape of a commit hash
SIGNING_KEY = _draw(BASE64, 43) + "="
UPLOAD_KEY = _draw(HEX, 64)  # the shape of a sha256 digest
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ" + _draw(BASE64[:62], 20) + "." + _draw(BASE64[:62], 43)
PASSWORDS = {spelling: f"pw{spelling.lower()}Zq81x" for spelling in ("PASSWD", "PWD", "PAT")}
SECRET_PATHS = ["/run/secrets/hf-token-a81", "/home/u/.keys/api-key-b72", "/etc/db/pass-c63"]
FACT_COMMIT = _draw(HEX, 40)  # named as a commit: kept
FACT_DIGEST = _draw(HEX, 64)  # named as a digest: kept
ESCAPES = "\x1b]0;owned-title\x07\x1b[2J\x1b[31m"


def _python_env(**extra: str) -> dict[str, str]:
    """The test's environment with the checkout importable, plus `extra`."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def _envsnap(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", *args],
        cwd=cwd,
        env=env or _python_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")


def _repo(root: Path) -> Path:
    repo = root / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "train.py").write_text("lr = 3e-4\n")
    (repo / "run.sh").write_text("python train.py\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def _leaks(output: bytes, secrets: list[str]) -> list[str]:
    """The secrets found in `output`, as written raw or as JSON escapes them."""
    found = []
    for secret in secrets:
        forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
        if any(form in output for form in forms):
            found.append(secret)
    return found


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_env_and_config_secrets_under_any_name_stay_out_of_the_manifest(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "envsnap.toml").write_text(
        '[env]\nextra_prefixes = ["MYSVC_"]\n'
        f'[precision.other]\nservice_id = "{SIGNING_KEY}"\nkey_file = "{SECRET_PATHS[2]}"\n'
    )
    planted = {
        "MYSVC_SERVICE_ID": SERVICE_KEY,
        "MYSVC_REQUEST_SIG": SIGNING_KEY,
        "MYSVC_UPLOAD_HASH": UPLOAD_KEY,
        "MYSVC_TOKEN_FILE": SECRET_PATHS[0],
        "MYSVC_API_KEY_PATH": SECRET_PATHS[1],
        "MYSVC_ENDPOINT": "https://svcuser:hunter2pw@api.example.com/v1",
        "MYSVC_HEADERS": f"Authorization: Bearer {JWT[:30]}",
        "MYSVC_SESSION_TOKEN_VALUE": JWT,
        "MYSVC_DB_PASSWD": PASSWORDS["PASSWD"],
        "MYSVC_DB_PWD": PASSWORDS["PWD"],
        "MYSVC_GH_PAT": PASSWORDS["PAT"],
        "MYSVC_OPENAI_APIKEY": "plainApikeyQ7",
        "MYSVC_SSH_PRIVATE_KEY": "plainPrivateQ8",
        "MYSVC_GIT_COMMIT": FACT_COMMIT,
        "MYSVC_DATA_SHA256": FACT_DIGEST,
    }
    out = tmp_path / "m.json"
    _envsnap(
        *("capture", "--only", "env,code,precision", "-o", str(out)),
        *("--set", f"parallel.other.shard_sig={UPLOAD_KEY}"),
        cwd=repo,
        env=_python_env(**planted),
    )
    raw = out.read_bytes()
    secrets = [SERVICE_KEY, SIGNING_KEY, UPLOAD_KEY, JWT, JWT[:30], "hunter2pw", *SECRET_PATHS]
    secrets += [*PASSWORDS.values(), "plainApikeyQ7", "plainPrivateQ8"]
    assert _leaks(raw, secrets) == []
    document = json.loads(raw)
    variables = document["env"]["variables"]
    assert variables["MYSVC_GIT_COMMIT"] == FACT_COMMIT
    assert variables["MYSVC_DATA_SHA256"] == FACT_DIGEST
    assert variables["MYSVC_ENDPOINT"] == "https://<redacted>@api.example.com/v1"
    assert document["code"]["commit"] == _head(repo)
    assert len(document["digest"]) >= 64  # the seal is a digest, kept as written


def test_command_line_secrets_stay_out_of_the_manifest(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "m.json"
    (repo / "job.py").write_text(
        "import sys, envsnap\n"
        "envsnap.capture(sys.argv.pop(1), only=['code'])\n"  # the rest of argv is the job's
    )
    argv = [
        f"--token-file={SECRET_PATHS[0]}",
        *("--api-key-path", SECRET_PATHS[1]),
        *("--password-file", SECRET_PATHS[2]),
        f"MY_SERVICE_ID={SERVICE_KEY}",
        *("--request-sig", SIGNING_KEY),
        UPLOAD_KEY,
        *("--header", f"Authorization: Bearer {JWT}"),
        *("--db-url", "postgres://admin:hunter2pw@db.example.com:5432/x"),
        *("--revision", FACT_COMMIT),
        f"--data-sha256={FACT_DIGEST}",
        *("--lr", "0.1"),
    ]
    done = subprocess.run(
        [sys.executable, "job.py", str(out), *argv],
        cwd=repo,
        env=_python_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    raw = out.read_bytes()
    assert (
        _leaks(raw, [SERVICE_KEY, SIGNING_KEY, UPLOAD_KEY, JWT, "hunter2pw", *SECRET_PATHS]) == []
    )
    document = json.loads(raw)
    recorded = document["run"]["argv"]
    assert recorded[recorded.index("--revision") + 1] == FACT_COMMIT
    assert f"--data-sha256={FACT_DIGEST}" in recorded
    assert recorded[-2:] == ["--lr", "0.1"]
    assert "--token-file=<redacted>" in recorded
    assert document["code"]["commit"] == _head(repo)


def test_secrets_in_the_dirty_tree_patch_stay_out_of_the_manifest(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "train.py").write_text(
        "lr = 3e-4\n"
        f'MY_SERVICE_ID = "{SERVICE_KEY}"\n'
        f'client = Client(signing_key_file="{SECRET_PATHS[1]}", session="{JWT}")\n'
        f'ENDPOINT = "https://svcuser:hunter2pw@api.example.com/v1"\n'
        f'dataset_sha256 = "{FACT_DIGEST}"\n'
    )
    (repo / "run.sh").write_text(
        f"python train.py --token-file {SECRET_PATHS[0]} --upload-sig={UPLOAD_KEY}\n"
        f"export REQUEST_SIG={SIGNING_KEY}\n"
    )
    out = tmp_path / "m.json"
    _envsnap("capture", "--only", "code", "-o", str(out), cwd=repo)
    raw = out.read_bytes()
    assert (
        _leaks(raw, [SERVICE_KEY, SIGNING_KEY, UPLOAD_KEY, JWT, "hunter2pw", *SECRET_PATHS]) == []
    )
    code = json.loads(raw)["code"]
    assert code["commit"] == _head(repo)
    assert f'dataset_sha256 = "{FACT_DIGEST}"' in code["patch"]
    patch = git(repo, "diff", "HEAD").encode()
    assert code["diff_sha256"] == hashlib.sha256(patch).hexdigest()  # of the real patch


def _tracker_records(root: Path) -> list[Path]:
    mlflow = root / "mlruns"
    shutil.copytree(FIXTURES / "mlflow" / "mlruns", mlflow)
    run = next(p for p in (mlflow / "1").iterdir() if p.is_dir() and (p / "tags").is_dir())
    (run / "tags" / "mlflow.source.name").write_text(
        f"python train.py --token-file={SECRET_PATHS[0]} MY_SERVICE_ID={SERVICE_KEY} "
        f"--api-key-path {SECRET_PATHS[1]} --revision {FACT_COMMIT}"
    )
    (run / "tags" / "mlflow.source.git.commit").write_text(FACT_COMMIT)
    wandb = root / "wandb_run"
    shutil.copytree(FIXTURES / "wandb" / "gpu_run", wandb)
    meta_path = wandb / "files" / "wandb-metadata.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text())
    meta["args"] = [
        *meta["args"],
        *("--password-file", SECRET_PATHS[2]),
        f"--request-sig={SIGNING_KEY}",
        UPLOAD_KEY,
    ]
    meta_path.write_text(json.dumps(meta))
    return [run, wandb]


def test_secrets_in_imported_tracker_records_stay_out_of_the_manifest(tmp_path: Path) -> None:
    mlflow_run, wandb_run = _tracker_records(tmp_path)
    for index, record in enumerate((mlflow_run, wandb_run)):
        out = tmp_path / f"imported{index}.json"
        _envsnap("import", "auto", str(record), "-o", str(out), cwd=tmp_path)
        raw = out.read_bytes()
        assert _leaks(raw, [SERVICE_KEY, SIGNING_KEY, UPLOAD_KEY, *SECRET_PATHS]) == []
    document = json.loads((tmp_path / "imported0.json").read_bytes())
    assert document["code"]["commit"] == FACT_COMMIT
    assert FACT_COMMIT in document["run"]["argv"]  # after --revision: a commit, kept


def _dirty_repo_with_escapes(root: Path) -> tuple[Path, Path, bytes]:
    """A repository whose dirty file holds raw terminal escapes, and its captured manifest."""
    repo = _repo(root)
    dirty = f"lr = 3e-4\n# {ESCAPES}done\nprint('\\x1b[0m')\r\n".encode()
    (repo / "train.py").write_bytes(dirty)
    manifest = root / "m.json"
    _envsnap("capture", "--only", "code", "-o", str(manifest), cwd=repo)
    return repo, manifest, dirty


def test_export_patch_to_a_file_or_a_pipe_is_byte_exact_and_applies(tmp_path: Path) -> None:
    repo, manifest, dirty = _dirty_repo_with_escapes(tmp_path)
    expected = subprocess.run(  # bytes: the helper's text mode would fold the CR LF
        ["git", "diff", "HEAD"], cwd=repo, capture_output=True, check=True
    ).stdout
    patch = tmp_path / "p.diff"
    command = [sys.executable, "-m", "envsnap", "export", "patch", str(manifest)]
    with patch.open("wb") as redirected:  # as `envsnap export patch m.json > p.diff`
        subprocess.run(command, stdout=redirected, env=_python_env(), timeout=60, check=True)
    piped = subprocess.run(command, capture_output=True, env=_python_env(), timeout=60, check=True)
    assert patch.read_bytes() == piped.stdout == expected

    git(repo, "reset", "-q", "--hard", "HEAD")
    git(repo, "apply", str(patch))
    assert (repo / "train.py").read_bytes() == dirty


def _read_terminal(command: list[str]) -> bytes:
    """Everything `command` writes to a real pseudo-terminal as its stdout."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            command, stdout=terminal, stderr=subprocess.DEVNULL, env=_python_env()
        )
    finally:
        os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(controller)
        process.wait(timeout=60)
    assert process.returncode == 0
    return b"".join(chunks)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_export_patch_on_a_terminal_shows_escapes_instead_of_sending_them(tmp_path: Path) -> None:
    _, manifest, _ = _dirty_repo_with_escapes(tmp_path)
    shown = _read_terminal([sys.executable, "-m", "envsnap", "export", "patch", str(manifest)])
    assert b"\x1b" not in shown and b"\x07" not in shown
    assert b"\\x1b]0;owned-title\\x07\\x1b[2J" in shown  # visible, so a reader sees the attack
    assert b"+# \\x1b]0;owned-title" in shown  # the patch itself, line by line


# Characters a terminal acts on that JSON leaves raw: bidi override (U+202E), C1 CSI (U+009B).
RAW_IN_JSON = "\u202e\u009b31m"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_import_to_a_terminal_escapes_what_json_leaves_raw_and_a_pipe_gets_exact_json(
    tmp_path: Path,
) -> None:
    mlflow = tmp_path / "mlruns"
    shutil.copytree(FIXTURES / "mlflow" / "mlruns", mlflow)
    run = next(p for p in (mlflow / "1").iterdir() if p.is_dir() and (p / "tags").is_dir())
    (run / "tags" / "mlflow.source.name").write_text(f"train.py {ESCAPES}{RAW_IN_JSON}")
    command = [sys.executable, "-m", "envsnap", "import", "mlflow", str(run)]
    shown = _read_terminal(command)
    assert not any(raw.encode() in shown for raw in RAW_IN_JSON[:2]), shown[-400:]
    assert b"\\u202e" in shown and b"\\u009b" in shown  # still JSON, the same value
    piped = subprocess.run(command, capture_output=True, env=_python_env(), timeout=60, check=True)
    written = tmp_path / "imported.json"
    _envsnap("import", "mlflow", str(run), "-o", str(written), cwd=tmp_path)
    assert piped.stdout == written.read_bytes()  # a pipe gets the file's exact bytes
    assert json.loads(shown.replace(b"\r\n", b"\n")) == json.loads(piped.stdout)


# Shapes a red-team pass found kept: INI-style pairs with spaces, netrc entries, one-time secrets
# in URL queries, escaped parameter names, a Google key after a percent escape, a secret under a
# LOGIN name, and a random key with no digit.
INI_KEY = _draw(BASE64, 41)  # one character off the AWS format: only its name marks it
NETRC_PASSWORD = "HunterTwo" + _draw(BASE64[:62], 8)
ONE_TIME = {name: "Zq" + _draw(BASE64[:62], 14) for name in ("code", "otp", "hmac", "sig")}
ESCAPED_NAME_SECRET = "Zq" + _draw(BASE64[:62], 14)
GOOGLE_KEY = "AIza" + _draw(BASE64[:62] + "_-", 35)
LOGIN_SECRET = "plainsecret" + _draw(BASE64[:62], 8)
NO_DIGIT_KEY = "Qx+" + "".join(_RNG.choice(BASE64[:52] + "+/") for _ in range(40)) + "/wZ"


def _red_team_secrets() -> list[str]:
    return [
        INI_KEY,
        NETRC_PASSWORD,
        *ONE_TIME.values(),
        ESCAPED_NAME_SECRET,
        GOOGLE_KEY,
        LOGIN_SECRET,
        NO_DIGIT_KEY,
    ]


def test_red_team_shapes_stay_out_of_env_argv_remotes_and_the_patch(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    query = "&".join(f"{name}={value}" for name, value in ONE_TIME.items())
    git(repo, "remote", "add", "mirror", f"https://git.example.com/r.git?{query}")
    (repo / "credentials.ini").write_text("[default]\nregion = eu-west-1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "config")
    (repo / "credentials.ini").write_text(
        f"[default]\nregion = eu-west-1\naws_secret_access_key = {INI_KEY}\n"
    )
    (repo / "run.sh").write_text(
        f"python train.py\n# machine h login a password {NETRC_PASSWORD}\n"
    )
    planted = {
        "MYSVC_NETRC": f"machine h login a password {NETRC_PASSWORD}",
        "MYSVC_CALLBACK": f"https://api.example.com/cb?{query}",
        "MYSVC_NEXT": f"https://h.example.com/x?pass%77ord={ESCAPED_NAME_SECRET}",
        "MYSVC_MAPS": f"https://maps.example.com/x?q=%22{GOOGLE_KEY}%22",
        "HF_LOGIN": LOGIN_SECRET,
        "MYSVC_REQUEST_ID": NO_DIGIT_KEY,
        "MYSVC_CONFIG": f"aws_secret_access_key = {INI_KEY}",
        "MYSVC_GIT_COMMIT": FACT_COMMIT,
    }
    out = tmp_path / "m.json"
    (repo / "job.py").write_text(
        "import sys, envsnap\nenvsnap.capture(sys.argv.pop(1), only=['env', 'code'])\n"
    )
    argv = [
        f"machine h login a password {NETRC_PASSWORD}",
        f"--callback=https://api.example.com/cb?{query}",
        f"https://h.example.com/x?password%3D={ESCAPED_NAME_SECRET}",
        NO_DIGIT_KEY,
        *("--revision", FACT_COMMIT),
    ]
    (repo / "envsnap.toml").write_text('[env]\nextra_prefixes = ["MYSVC_"]\nnames = ["HF_LOGIN"]\n')
    done = subprocess.run(
        [sys.executable, "job.py", str(out), *argv],
        cwd=repo,
        env=_python_env(**planted),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    raw = out.read_bytes()
    assert _leaks(raw, _red_team_secrets()) == []
    document = json.loads(raw)
    variables = document["env"]["variables"]
    assert variables["MYSVC_GIT_COMMIT"] == FACT_COMMIT
    assert variables["HF_LOGIN"] == "<redacted>"
    assert "region = eu-west-1" in document["code"]["patch"]
    assert FACT_COMMIT in document["run"]["argv"]
    assert document["code"]["commit"] == _head(repo)
