"""Every file-reading command x every kind of bad input: exit 2, one line on stderr, no
traceback, bounded time. Run in-process (fast); a few real subprocesses check memory too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, CliResult

Run = Callable[..., CliResult]
GOOD = FIXTURES / "manifests" / "full.json"
BASE = json.loads(GOOD.read_text())
HOSTILE_NAME = "m\x1b]0;pwned\x07\u202e[bold]x.json"


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _manifest_text(**changes: object) -> str:
    text = json.dumps(BASE)
    for key, value in changes.items():
        text = text.replace(f'"{key}": ', f'"{key}": {json.dumps(value)}, "{key}": ', 1)
    return text


def _wrong_types() -> str:
    document = json.loads(json.dumps(BASE))
    document["run"]["pid"] = "123"
    return json.dumps(document)


def _make(kind: str, where: Path) -> Path:
    """A bad input of `kind` under `where` (a file, a pipe, a device or a link)."""
    path = where / (HOSTILE_NAME if kind == "hostile name" else f"{kind.replace(' ', '_')}.json")
    contents = {
        "empty": b"",
        "truncated": GOOD.read_bytes()[:5000],
        "deep": _deep(100_000).encode(),
        "binary": bytes(range(256)) * 64,
        "nan": b'{"schema_version": "1.0", "x": NaN}',
        "big int": b'{"schema_version": "1.0", "x": ' + b"9" * 5000 + b"}",
        "duplicate keys": _manifest_text(schema_version="1.0").encode(),
        "wrong types": _wrong_types().encode(),
        "lone surrogate": b'{"schema_version": "1.0", "x": "\\ud800"}',
        "hostile name": b"{not json",
    }
    if kind in contents:
        path.write_bytes(contents[kind])
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(2 * 1024**3)  # sparse: past every cap, reading it would take long
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return Path("/dev/zero")
    elif kind == "symlink loop":
        path.symlink_to(path)
    else:
        raise AssertionError(kind)
    return path


KINDS = [
    "empty", "truncated", "huge", "deep", "binary", "nan", "big int", "duplicate keys",
    "wrong types", "lone surrogate", "fifo", "device", "symlink loop", "hostile name",
]  # fmt: skip


@pytest.fixture(scope="module")
def goods(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Valid companions: a manifest, its key pair and signature, a trace."""
    from envsnap.cli import main

    root = tmp_path_factory.mktemp("goods")
    manifest = root / "good.json"
    shutil.copy(GOOD, manifest)
    for args in (
        ["keygen", str(root / "key")],
        ["sign", str(manifest), "--key", str(root / "key")],
    ):
        with pytest.raises(SystemExit) as done:
            main(args)
        assert done.value.code == 0
    trace = root / "good.jsonl"
    session = {"kind": "session", "format": 1, "every": 1, "digests": ["params"]}
    update = {"kind": "update", "update": 1, "micro_steps": 1, "loss": 1.0, "params": "p"}
    trace.write_text(json.dumps(session) + "\n" + json.dumps(update) + "\n")
    return {
        "manifest": manifest,
        "key": root / "key",
        "pub": root / "key.pub",
        "sig": Path(f"{manifest}.sig"),
        "trace": trace,
        "out": root / "out",
    }


# Each command with BAD where the bad input goes; {name} are the valid companions.
COMMANDS: dict[str, list[str]] = {
    "diff A": ["diff", "BAD", "{manifest}"],
    "diff B": ["diff", "{manifest}", "BAD"],
    "check": ["check", "BAD"],
    "report": ["report", "BAD"],
    "report --against": ["report", "{manifest}", "--against", "BAD"],
    "show": ["show", "BAD"],
    "verify": ["verify", "BAD"],
    "verify --key": ["verify", "{manifest}", "--key", "BAD", "--signature", "{sig}"],
    "verify --signature": ["verify", "{manifest}", "--key", "{pub}", "--signature", "BAD"],
    "sign": ["sign", "BAD", "--key", "{key}", "-o", "{out}.sig"],
    "sign --key": ["sign", "{manifest}", "--key", "BAD", "-o", "{out}.sig"],
    "import auto": ["import", "auto", "BAD", "-o", "{out}.json"],
    "import collect-env": ["import", "collect-env", "BAD", "-o", "{out}.json"],
    "import wandb": ["import", "wandb", "BAD", "-o", "{out}.json"],
    "import mlflow": ["import", "mlflow", "BAD", "-o", "{out}.json"],
    "export cyclonedx": ["export", "cyclonedx", "BAD", "-o", "{out}.cdx.json"],
    "fleet": ["fleet", "BAD", "{manifest}"],
    "trace diff A": ["trace", "diff", "BAD", "{trace}"],
    "trace diff B": ["trace", "diff", "{trace}", "BAD"],
    "ckpt inspect": ["ckpt", "inspect", "BAD"],
    "capture --config": ["capture", "--config", "BAD", "--only", "python", "-o", "{out}.json"],
    "run --as": ["run", "--as", "BAD", "--no-manifest", "--", "true"],
    "bisect A": ["bisect", "BAD", "{manifest}", "--metric", "m=(\\S+)", "--", "true"],
    "bisect B": ["bisect", "{manifest}", "BAD", "--metric", "m=(\\S+)", "--", "true"],
}
# Inputs that are valid for a command: an empty TOML file is an empty configuration.
VALID = {("capture --config", "empty")}


def _args(command: str, bad: Path, goods: dict[str, Path]) -> list[str]:
    return [
        str(bad) if arg == "BAD" else arg.format(**{k: str(v) for k, v in goods.items()})
        for arg in COMMANDS[command]
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_every_command_refuses_bad_input_in_one_line(
    kind: str, goods: dict[str, Path], tmp_path: Path, run_cli: Run
) -> None:
    if kind in ("fifo",) and not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    bad = _make(kind, tmp_path)
    failures = []
    for command in COMMANDS:
        if (command, kind) in VALID:
            continue
        started = time.monotonic()
        result = run_cli(*_args(command, bad, goods))
        took = time.monotonic() - started
        lines = result.err.strip().splitlines()
        ok = (
            result.code == 2
            and len(lines) == 1
            and lines[0].startswith("envsnap: error: ")
            and "Traceback" not in result.err
            and "internal error" not in result.err
            and took < 20
        )
        if not ok:
            failures.append((command, result.code, result.err[-300:], round(took, 1)))
    assert not failures, failures


# The child reports its own high-water mark (VmHWM of the process after exec): ru_maxrss from
# wait4 would also count the pages of this large test process it was forked from.
_MEASURED = (
    "import os, sys\n"
    "from envsnap.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
    "    open(os.environ['ENVSNAP_TEST_HWM'], 'w').write(status)\n"
)


def _peak_rss_mib(argv: list[str], report: Path) -> tuple[int, float, float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv],
        env={**os.environ, "ENVSNAP_TEST_HWM": str(report)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    took = time.monotonic() - started
    return done.returncode, took, int(report.read_text()) / 1024, done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("kind", "argv"),
    [
        ("device", ["trace", "diff", "BAD", "BAD"]),
        ("fifo", ["diff", "BAD", "BAD"]),
        ("huge", ["check", "BAD"]),
        ("deep", ["trace", "diff", "BAD", "BAD"]),
    ],
)
def test_real_processes_stay_bounded(kind: str, argv: list[str], tmp_path: Path) -> None:
    bad = _make(kind, tmp_path)
    argv = [str(bad) if a == "BAD" else a for a in argv]
    code, took, rss, err = _peak_rss_mib(argv, tmp_path / "hwm")
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1
    assert took < 60
    assert rss < 300, rss
