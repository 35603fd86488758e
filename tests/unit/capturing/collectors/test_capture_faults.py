"""Capture survives its environment: a blocking NVML library, runaway git output, a large
binary change, a deleted working directory and a bad `extra` each cost at most their own part."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import envsnap
from envsnap.capturing.collectors import COLLECTORS, nvml
from envsnap.capturing.collectors import code as code_collector
from envsnap.capturing.collectors.base import CaptureContext
from envsnap.capturing.collectors.stream import run_streamed
from envsnap.capturing.config import CaptureConfig
from envsnap.capturing.run import build_manifest
from tests.helpers import git

MakeRepo = Callable[..., Path]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_blocking_nvml_library_costs_only_the_gpu_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dlopen of a named pipe blocks in open() until a writer appears: a real blocking load.
    fake = tmp_path / "libnvidia-ml.so.1"
    os.mkfifo(fake)
    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    monkeypatch.setattr(nvml, "NVML_LIBRARY", str(fake))
    monkeypatch.setattr(nvml, "NVML_PROBE_TIMEOUT_S", 1.0)
    context = CaptureContext(
        env={}, cwd=tmp_path, config=CaptureConfig(), deadline=time.monotonic() + 20
    )
    started = time.monotonic()
    manifest = build_manifest(names=["gpu", "python"], context=context)
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    assert manifest.collectors["gpu"].status == "error"
    assert "did not load within 1 s" in (manifest.collectors["gpu"].reason or "")
    assert manifest.collectors["python"].status == "ok"


def test_a_missing_library_is_still_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert nvml.probe_library(str(tmp_path / "absent.so"), 10.0) is not None
    assert nvml.probe_library("libc.so.6", 10.0) is None


def test_the_loader_search_path_is_read_without_loading_anything(tmp_path: Path) -> None:
    name = "libenvsnap-test-absent.so.1"
    empty_cache = tmp_path / "ld.so.cache"
    empty_cache.write_bytes(b"glibc-ld.so.cache1.1\0libother.so.1\0")
    assert not nvml.library_on_search_path(name, {}, empty_cache, trusted=())
    # In a directory of LD_LIBRARY_PATH.
    libdir = tmp_path / "lib"
    libdir.mkdir()
    (libdir / name).write_bytes(b"")
    env = {"LD_LIBRARY_PATH": f"/nonexistent:{libdir}"}
    assert nvml.library_on_search_path(name, env, empty_cache, trusted=())
    # In a trusted directory.
    assert nvml.library_on_search_path(name, {}, empty_cache, trusted=(str(libdir),))
    # Named in the loader's cache, alone or as a path; names that merely contain it do not count.
    listed = tmp_path / "listed.cache"
    listed.write_bytes(b"glibc-ld.so.cache1.1\0" + name.encode() + b"\0")
    assert nvml.library_on_search_path(name, {}, listed, trusted=())
    assert not nvml.library_on_search_path(name[:-2], {}, listed, trusted=())
    assert not nvml.library_on_search_path(name[3:], {}, listed, trusted=())
    as_path = tmp_path / "path.cache"
    as_path.write_bytes(b"\0/usr/lib/x86_64-linux-gnu/" + name.encode() + b"\0")
    assert nvml.library_on_search_path(name, {}, as_path, trusted=())
    # No cache to rule it out: the probe decides.
    assert nvml.library_on_search_path(name, {}, tmp_path / "missing.cache", trusted=())
    # A path is looked at directly.
    assert nvml.library_on_search_path(str(libdir / name), {}, empty_cache, trusted=())
    assert not nvml.library_on_search_path(str(tmp_path / name), {}, empty_cache, trusted=())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's loader cache")
def test_this_hosts_c_library_is_on_the_search_path() -> None:
    assert nvml.library_on_search_path("libc.so.6", dict(os.environ))


def test_output_is_digested_as_it_streams_and_only_its_head_kept(tmp_path: Path) -> None:
    size = 48 * 1024 * 1024
    result = run_streamed(
        ["head", "-c", str(size), "/dev/zero"], cwd=tmp_path, timeout_s=60, keep=4096
    )
    expected = hashlib.sha256()
    for _ in range(size // (1024 * 1024)):
        expected.update(bytes(1024 * 1024))
    assert (result.size, len(result.head), result.sha256) == (size, 4096, expected.hexdigest())
    assert not result.complete


def test_a_runaway_program_is_killed_at_its_deadline(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_streamed(["sleep", "30"], cwd=tmp_path, timeout_s=0.5, keep=10)
    assert time.monotonic() - started < 10
    assert result.timed_out


def test_a_small_patch_is_kept_in_the_manifest(make_repo: MakeRepo) -> None:
    root = make_repo()
    (root / "train.py").write_text("print('train')\nlr = 0.1\n")
    section = COLLECTORS["code"].collect(CaptureContext(env={}, cwd=root))
    assert section.patch is not None and "+lr = 0.1" in section.patch
    assert hashlib.sha256(section.patch.encode()).hexdigest() == section.diff_sha256
    done = subprocess.run(
        ["git", "apply", "--check", "-R", "-"],
        input=section.patch,
        text=True,
        cwd=root,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_large_binary_change_is_recorded_by_digest_and_size_only(
    make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo()
    (root / "weights.bin").write_bytes(os.urandom(1024))
    git(root, "add", "weights.bin")
    git(root, "commit", "-q", "-m", "weights")
    (root / "weights.bin").write_bytes(os.urandom(3 * 1024 * 1024))
    kept: list[int] = []
    real = code_collector.run_streamed

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)
        kept.append(len(result.head))
        return result

    monkeypatch.setattr(code_collector, "run_streamed", spy)
    section = COLLECTORS["code"].collect(CaptureContext(env={}, cwd=root))
    assert section.patch is None
    assert section.diff_bytes is not None and section.diff_bytes > 3 * 1024 * 1024
    assert "256 KiB" in section.unknown["patch"]
    assert max(kept) <= code_collector.UNTRACKED_LIST_MAX_BYTES
    assert kept[0] <= code_collector.PATCH_MAX_BYTES  # the patch's head, not the patch


def test_a_secret_in_the_patch_is_redacted(make_repo: MakeRepo) -> None:
    root = make_repo()
    token = "hf_" + "q" * 34
    (root / "train.py").write_text(f"TOKEN = '{token}'\n")
    section = COLLECTORS["code"].collect(CaptureContext(env={}, cwd=root))
    assert section.patch is not None and token not in section.patch
    assert "redacted" in section.unknown["patch"]


def test_a_deleted_working_directory_is_recorded_not_fatal(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    code = (
        "import os, json, envsnap\n"
        f"os.chdir({str(gone)!r}); os.rmdir({str(gone)!r})\n"
        "m = envsnap.capture(only=['code', 'python'])\n"
        "print(json.dumps([m.run.cwd, m.collectors['code'].status, m.collectors['python'].status]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f'["{gone} (deleted)", "skipped", "ok"]'


def _deep(levels: int) -> list[object]:
    top: list[object] = []
    here = top
    for _ in range(levels):
        inner: list[object] = []
        here.append(inner)
        here = inner
    return top


def _self_referential() -> dict[str, object]:
    loop: dict[str, object] = {}
    loop["me"] = loop
    return loop


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({"deep": _deep(100_000)}, "nested deeper"),
        (_self_referential(), "contains itself"),
        ({"big": 10**5000}, "longer than 64 bits"),
        ({"many": list(range(200_000))}, "more than"),
    ],
)
def test_a_bad_extra_costs_only_extra(extra: dict[str, object], why: str) -> None:
    manifest = envsnap.capture(extra=extra, only=["python", "env"])
    assert why in str(manifest.extra["error"])
    assert manifest.python is not None and manifest.env is not None
    assert manifest.digest == manifest.compute_digest()
