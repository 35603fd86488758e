"""Every command that reads a file refuses a named pipe at once: exit 2, one line on stderr.

Opening a pipe for reading blocks until a writer appears, so a command that opened one would
hang. Each command runs in-process on a thread; a hang is released by opening the pipe for
writing, and fails the test.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, CliResult

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")

WAIT_S = 10.0


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "m.json"
    shutil.copy(FIXTURES / "manifests" / "full.json", path)
    return path


def _release(fifo: Path) -> None:
    """Give a reader blocked on the pipe its end of file."""
    with contextlib.suppress(OSError):  # nobody is reading it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def _run_bounded(run_cli: Callable[..., CliResult], fifo: Path, *args: str) -> CliResult:
    results: list[CliResult] = []
    worker = threading.Thread(target=lambda: results.append(run_cli(*args)), daemon=True)
    worker.start()
    worker.join(WAIT_S)
    if worker.is_alive():
        _release(fifo)
        worker.join(WAIT_S)
        pytest.fail(f"envsnap {' '.join(args)} blocked on a named pipe")
    return results[0]


def _assert_refused(result: CliResult, fifo: Path) -> None:
    assert result.code == 2, result
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert str(fifo) in lines[0]
    assert "pipe" in lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ("show", "{fifo}"),
        ("verify", "{fifo}"),
        ("diff", "{fifo}", "{manifest}"),
        ("diff", "{manifest}", "{fifo}"),
        ("check", "{fifo}"),
        ("report", "{fifo}"),
        ("report", "{manifest}", "--against", "{fifo}"),
        ("import", "auto", "{fifo}"),
        ("import", "collect-env", "{fifo}"),
        ("export", "cyclonedx", "{fifo}"),
        ("fleet", "{fifo}"),
        ("trace", "diff", "{fifo}", "{fifo}"),
        ("ckpt", "inspect", "{fifo}"),
        ("capture", "--only", "python", "--config", "{fifo}"),
        ("sign", "{manifest}", "--key", "{fifo}"),
    ],
    ids=lambda command: " ".join(part.strip("{}") for part in command),
)
def test_a_named_pipe_is_refused_at_once(
    run_cli: Callable[..., CliResult], fifo: Path, manifest: Path, command: tuple[str, ...]
) -> None:
    args = [part.format(fifo=fifo, manifest=manifest) for part in command]
    _assert_refused(_run_bounded(run_cli, fifo, *args), fifo)


def test_verify_refuses_a_named_pipe_as_key_or_signature(
    run_cli: Callable[..., CliResult], fifo: Path, manifest: Path, tmp_path: Path
) -> None:
    pytest.importorskip("cryptography")
    key = tmp_path / "key"
    assert run_cli("keygen", str(key)).code == 0
    assert run_cli("sign", str(manifest), "--key", str(key)).code == 0
    as_key = _run_bounded(run_cli, fifo, "verify", str(manifest), "--key", str(fifo))
    _assert_refused(as_key, fifo)
    as_signature = _run_bounded(
        run_cli, fifo, "verify", str(manifest), "--key", f"{key}.pub", "--signature", str(fifo)
    )
    _assert_refused(as_signature, fifo)
