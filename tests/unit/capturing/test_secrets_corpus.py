"""A corpus of planted secrets across every channel a manifest is built from (env, argv, git
remotes, labels, --set, the config file, extra, file names, imported collect_env, W&B and
MLflow records), scanned for in every output (manifest JSON, show, diff table / markdown /
json, report html / markdown, export). None may appear.

Token values are built at run time from the format examples (`'ghp_' + 'x'*36` with a filler
unique to each plant), so no token-shaped literal sits in the repository.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.secret_formats import KEYED, WHOLE
from tests.helpers import FIXTURES, git

EXAMPLES: dict[str, str] = json.loads((FIXTURES / "secret_examples.json").read_text())
PATTERNS = {fmt.name: fmt.pattern for fmt in (*WHOLE, *KEYED)}


def _unique(value: str, index: int, pattern: str) -> str:
    """The example with its longest run of `x` replaced by letters unique to `index`."""
    runs = re.findall(r"x{8,}", value)
    if not runs:
        return value
    run = max(runs, key=len)
    tag = "".join(chr(ord("a") + (index // 26**k) % 26) for k in range(3))
    filler = (tag + "q" * len(run))[: len(run)]
    candidate = value.replace(run, filler, 1)
    return candidate if re.search(pattern, candidate) else value


def _format_secrets() -> list[str]:
    secrets = []
    for index, (name, expression) in enumerate(sorted(EXAMPLES.items())):
        value = eval(expression, {"__builtins__": {}})  # expressions of string literals only
        secrets.append(_unique(value, index, PATTERNS[name]))
    return secrets


TOKENS = _format_secrets()
# Secrets with no recognisable format: only their name marks them.
PLAIN = [f"plainSecretValue{i:02d}zz" for i in range(20)]
# Keys with no format under innocent names: only their random shape marks them. And paths that
# say where a secret is kept, under --token-file-like names.
_SHAPES = random.Random(1905)
SHAPED = ["".join(_SHAPES.choice("0123456789abcdef") for _ in range(40)) for _ in range(6)]
SHAPED += [f"/run/secrets/corpusSecretPath{i:02d}" for i in range(4)]
# Secrets marked only by where they sit: a netrc entry, a one-time query parameter, an escaped
# parameter name, a LOGIN name; and a digit-free random key, marked only by its shape.
PLACED = [f"placedSecretValue{i:02d}zz" for i in range(5)]
PLACED.append(
    "Qx+"
    + "".join(
        _SHAPES.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/") for _ in range(40)
    )
    + "/wZ"
)


def _spread(channel: int, channels: int) -> list[str]:
    return TOKENS[channel::channels]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("corpus")
    project = root / "proj"
    project.mkdir()
    git(project, "init", "-q")
    (project / "train.py").write_text("print('hi')\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "initial")
    channels = 9
    remotes = _spread(0, channels)
    git(project, "remote", "add", "origin", f"https://alice:{PLAIN[0]}/x@y@git.example.com/r.git")
    git(project, "remote", "add", "scp", f"deploy:{PLAIN[1]}@build.example.com:repo.git")
    git(project, "remote", "add", "carol", f"https://carol:{PLAIN[16]}@git.example.com/c.git")
    for i, token in enumerate(remotes):
        git(project, "remote", "add", f"r{i}", f"https://{token}@git.example.com/r{i}.git")
    env_tokens = _spread(1, channels)
    env = {f"SECRETTEST_V{i}": f"value {token} end" for i, token in enumerate(env_tokens)}
    env |= {"SECRETTEST_API_KEY": PLAIN[2], "SECRETTEST_DB_PASSWORD": PLAIN[3]}
    env |= {"SECRETTEST_INDEX_URL": f"https://user:{PLAIN[4]}@pypi.example.com/simple"}
    env |= {"SECRETTEST_AUTH_HEADER": f"Authorization: Basic {PLAIN[15]}"}
    env |= {"SECRETTEST_SERVICE_ID": SHAPED[0], "SECRETTEST_TOKEN_FILE": SHAPED[6]}
    config_tokens = _spread(2, channels)
    config_lines = ["[env]", 'extra_prefixes = ["SECRETTEST_"]', "[precision.other]"]
    config_lines += [f'c{i} = "{token}"' for i, token in enumerate(config_tokens)]
    config_lines += [f'api_token = "{PLAIN[5]}"', f'secret_key = "{PLAIN[13]}"']
    config_lines += [f'service_id = "{SHAPED[1]}"']
    (project / "envsnap.toml").write_text("\n".join(config_lines) + "\n")
    data = project / "data"
    data.mkdir()
    # A file name cannot hold `/`; such tokens go to the label instead.
    file_tokens = [t for t in _spread(3, channels) if "/" not in t and len(t) < 200]
    for token in file_tokens:
        (data / f"{token}.csv").write_text("a,b\n")
    set_tokens = _spread(4, channels)
    label_tokens = _spread(5, channels) + [t for t in _spread(3, channels) if t not in file_tokens]
    sets = [f"parallel.other.s{i}={token}" for i, token in enumerate(set_tokens)]
    sets += [f"precision.other.hf_token={PLAIN[6]}", f"data.other.password={PLAIN[7]}"]
    sets += [f"data.other.private_key={PLAIN[17]}", f"parallel.other.request_sig={SHAPED[2]}"]
    sets += [f"parallel.other.hf_login={PLACED[3]}"]
    cli = [sys.executable, "-m", "envsnap", "capture", "--skip", "gpu,torch,cuda_stack,packages"]
    cli += ["--label", " ".join(label_tokens), "--data", str(data), "-o", str(root / "a.json")]
    for assignment in sets:
        cli += ["--set", assignment]
    process_env = {**os.environ, **env}
    done = subprocess.run(
        cli, cwd=project, env=process_env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    argv_tokens = _spread(6, channels)
    extra_tokens = _spread(7, channels)
    script = (
        "import json, sys, envsnap\n"
        f"sys.argv = ['train.py', '--token', {PLAIN[8]!r}, '--db-password={PLAIN[12]}', "
        f"'MY_SERVICE_ID={SHAPED[3]}', '--api-key-path', {SHAPED[7]!r}, "
        f"'--token-file={SHAPED[8]}', 'https://h.example.com/x?pass%77ord={PLACED[2]}', "
        f"'https://h.example.com/x?otp={PLACED[4]}', "
        f"'machine h login a password {PLACED[0]}', "
        f"'https://api.example.com/cb?state=s&code={PLACED[1]}', {PLACED[5]!r}, "
        f"*{argv_tokens!r}]\n"
        f"extra = {{'api_key': {PLAIN[9]!r}, 'nested': {{'password': {PLAIN[10]!r}}}, "
        f"'token': {PLAIN[14]!r}, "
        f"'notes': {extra_tokens!r}}}\n"
        "m = envsnap.capture(extra=extra, skip=['gpu', 'torch', 'cuda_stack', 'packages'])\n"
        f"open({str(root / 'b.json')!r}, 'w').write(m.to_json())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env=process_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported_tokens = _spread(8, channels)
    records = _imported_records(root, imported_tokens)
    planted_tokens = [
        *remotes,
        *env_tokens,
        *config_tokens,
        *file_tokens,
        *set_tokens,
        *label_tokens,
        *argv_tokens,
        *extra_tokens,
        *imported_tokens,
    ]
    secrets = planted_tokens + PLAIN + SHAPED + PLACED
    return {"root": root, "records": records, "secrets": secrets}


def _imported_records(root: Path, tokens: list[str]) -> list[Path]:
    third = max(1, len(tokens) // 3)
    report = (FIXTURES / "collect_env" / "14_2026_torch2.13_cpu_only.txt").read_text()
    report = report.replace("GCC version: ", f"GCC version: {' '.join(tokens[:third])} ", 1)
    report = report.replace(
        "Python platform: ",
        f"Python platform: password={PLAIN[11]} Authorization: Basic abcdefghij ",
        1,
    )
    collect_env = root / f"collect_env_{tokens[0][:40].replace('/', '_')}.txt"
    collect_env.write_text(report)
    wandb = root / "wandb_run"
    shutil.copytree(FIXTURES / "wandb" / "gpu_run", wandb)
    meta_path = wandb / "files" / "wandb-metadata.json"
    meta = json.loads(meta_path.read_text())
    meta["args"] = [*meta["args"], *tokens[third : 2 * third], "--api-key", PLAIN[18], SHAPED[5]]
    meta["git"]["remote"] = f"https://bob:{tokens[third]}@github.com/a/b.git"
    meta_path.write_text(json.dumps(meta))
    mlflow = root / "mlruns"
    shutil.copytree(FIXTURES / "mlflow" / "mlruns", mlflow)
    run = next(p for p in (mlflow / "1").iterdir() if p.is_dir())
    (run / "tags" / "mlflow.source.name").write_text(
        "python train.py --hf-token "
        + " --key ".join(tokens[2 * third :])
        + f" --password {PLAIN[19]} --password-file={SHAPED[9]} --service-id {SHAPED[4]}"
    )
    return [collect_env, wandb, run]


def _outputs(planted: dict[str, Any], run_cli) -> dict[str, str]:  # type: ignore[no-untyped-def]
    root: Path = planted["root"]
    manifests = [root / "a.json", root / "b.json"]
    for index, record in enumerate(planted["records"]):
        target = root / f"imported{index}.json"
        result = run_cli("import", "auto", str(record), "-o", str(target))
        assert result.code == 0, result.err
        manifests.append(target)
    outputs = {str(m.name): m.read_text() for m in manifests}
    for m in manifests:
        outputs[f"show {m.name}"] = run_cli("show", str(m)).out
        outputs[f"report html {m.name}"] = run_cli("report", str(m), "-f", "html").out
        outputs[f"export {m.name}"] = run_cli("export", "cyclonedx", str(m)).out
    for other in manifests[1:]:
        for fmt in ("table", "markdown", "json"):
            outputs[f"diff {fmt} {other.name}"] = run_cli(
                "diff", str(manifests[0]), str(other), "-f", fmt
            ).out
        outputs[f"report md {other.name}"] = run_cli(
            "report", str(manifests[0]), "--against", str(other), "-f", "markdown"
        ).out
    return outputs


def _core(secret: str) -> str:
    return max(re.findall(r"[A-Za-z0-9]+", secret), key=len)


def test_the_corpus_is_large_and_reaches_the_manifests(planted: dict[str, Any], run_cli) -> None:  # type: ignore[no-untyped-def]
    assert len(planted["secrets"]) >= 100
    outputs = _outputs(planted, run_cli)
    manifests = [
        text for name, text in outputs.items() if name.endswith(".json") and " " not in name
    ]
    assert all("<redacted>" in text for text in manifests)  # every channel carried something in
    planted["outputs"] = outputs


def test_no_planted_secret_appears_in_any_output(planted: dict[str, Any], run_cli) -> None:  # type: ignore[no-untyped-def]
    outputs = planted.get("outputs") or _outputs(planted, run_cli)
    leaks = []
    for secret in planted["secrets"]:
        core = _core(secret)
        for name, text in outputs.items():
            if secret in text or (len(core) >= 12 and core in text):
                leaks.append((name, secret[:40]))
    assert not leaks, "\n".join(sorted({f"{name}: {secret}" for name, secret in leaks}))


def test_data_files_whose_names_redact_alike_stay_distinct(planted: dict[str, Any]) -> None:
    document = json.loads((planted["root"] / "a.json").read_text())
    items = document["data"]["items"]
    listed = [name for item in items.values() for name in (item.get("files") or {})]
    planted = [t for t in _spread(3, 9) if "/" not in t and len(t) < 200]
    assert len(listed) == len(planted)  # none collapsed into another, though several redact alike
    assert sum(name.startswith("<redacted>") for name in listed) >= 2
