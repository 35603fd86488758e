"""The one table of variables `run --as` and `bisect` may apply, and the denylist that wins."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envsnap.experiment import allowlist, startup
from envsnap.experiment.allowlist import ALLOWED, Allowed, denied, may_unset, refusal
from envsnap.experiment.conditions import conditions_of
from envsnap.experiment.launch import environment_from, plan_for, prepare
from envsnap.experiment.packages import pin_problem

DOCS = Path(__file__).resolve().parents[3] / "docs" / "bisect.md"

# One of each family the denylist must always stop.
NEVER = (
    "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "PATH", "LD_LIBRARY_PATH", "PYTHONPATH",
    "PYTHONWARNINGS", "PYTHONSTARTUP", "BASH_ENV", "ENV", "BROWSER", "GIT_CONFIG_PARAMETERS",
    "GIT_SSH_COMMAND", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "JAVA_TOOL_OPTIONS",
    "NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "PRE_COMMIT_HOOK", "OMP_TOOL_LIBRARIES",
    "https_proxy", "HTTPS_PROXY", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS",
    "TORCHINDUCTOR_CACHE_DIR", "TORCHINDUCTOR_CPP_WRAPPER", "TRITON_CACHE_DIR", "CC", "CXX",
    "LDFLAGS", "HOME", "TMPDIR", "XDG_CACHE_HOME", "PIP_INDEX_URL", "UV_INDEX_URL",
    "CONDA_PREFIX", "CUDA_INJECTION64_PATH", "GLIBC_TUNABLES", "ENVSNAP_HOOK_CONFIG",
)  # fmt: skip


@pytest.mark.parametrize("name", NEVER)
def test_the_denylist_wins_even_over_the_table(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert denied(name) is not None
    # Even a table that lists it, with a value that passes its check, cannot apply it.
    monkeypatch.setitem(ALLOWED, name, Allowed("test", "test", allowlist.SWITCH))
    assert refusal(name, "1") == denied(name)
    assert not may_unset(name)


def test_no_name_of_the_table_is_denied_and_the_hash_seed_is_the_one_python_variable() -> None:
    assert [name for name in ALLOWED if denied(name)] == []
    assert [name for name in ALLOWED if name.startswith("PYTHON")] == ["PYTHONHASHSEED"]


@pytest.mark.parametrize(
    ("name", "value", "applied"),
    [
        ("OMP_NUM_THREADS", "8", True),
        ("OMP_NUM_THREADS", "8,2", True),
        ("OMP_NUM_THREADS", "0", False),
        ("OMP_NUM_THREADS", "eight", False),
        ("MKL_NUM_THREADS", "9" * 30, False),
        ("CUBLAS_WORKSPACE_CONFIG", ":4096:8", True),
        ("CUBLAS_WORKSPACE_CONFIG", ":4096:2:16:8", True),
        ("CUBLAS_WORKSPACE_CONFIG", "4096", False),
        ("NVIDIA_TF32_OVERRIDE", "0", True),
        ("NVIDIA_TF32_OVERRIDE", "2", False),
        ("NVIDIA_TF32_OVERRIDE", "\x1b[2J0", False),
        ("NCCL_ALGO", "^NVLS", True),
        ("NCCL_ALGO", "allreduce:tree;broadcast:ring", True),
        ("NCCL_ALGO", "Ring /tmp/x", False),
        ("MKL_CBWR", "AUTO,STRICT", True),
        ("ONEDNN_MAX_CPU_ISA", "../lib", False),
        # numpy refuses some combinations at import: its dispatch variables are never applied.
        ("NPY_DISABLE_CPU_FEATURES", "AVX512_SKX", False),
        ("NPY_ENABLE_CPU_FEATURES", "SSE42", False),
        ("OPENBLAS_CORETYPE", "Haswell", True),
        ("OPENBLAS_CORETYPE", "/opt/kernels", False),
        ("PYTHONHASHSEED", "random", True),
        ("PYTHONHASHSEED", "4294967296", False),
        ("KMP_DETERMINISTIC_REDUCTION", "true", True),
        ("NCCL_DEBUG", "INFO", False),
        ("XLA_FLAGS", "--xla_dump_to=/tmp", False),
        # Digits and letters outside ASCII: '²' crashed int(), '١٢' killed every Python child
        # as PYTHONHASHSEED, the Kelvin sign passed a case-blind check.
        ("MKL_NUM_THREADS", "\u00b2", False),
        ("OMP_NUM_THREADS", "\u0661\u0666", False),
        ("PYTHONHASHSEED", "\u0661\u0662", False),
        ("MKL_CBWR", "AV\u212a", False),
    ],
)
def test_values_are_checked(name: str, value: Any, applied: bool) -> None:
    assert (refusal(name, value) is None) is applied, refusal(name, value)


def test_a_value_that_is_not_text_or_looks_like_a_path_is_never_applied() -> None:
    assert refusal("OMP_NUM_THREADS", 8) == "the recorded value is not text"
    assert refusal("ATEN_CPU_CAPABILITY", "~/avx2") == "the value looks like a path"
    assert "longer than" in str(refusal("NCCL_ALGO", "Ring," * 40))


def test_the_docs_list_exactly_the_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Variables that are applied", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([A-Z0-9_]+)` \|", section, flags=re.MULTILINE)
    assert sorted(listed) == sorted(ALLOWED)
    for name, rule in ALLOWED.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| `{name}` |"))
        assert rule.changes in row and rule.source in row, name


def _recorded(variables: dict[str, Any], **env: Any) -> dict[str, Any]:
    return {"env": {"variables": variables, "prefixes": [], "names": [], "redacted": [], **env}}


def test_only_table_variables_are_unset_whatever_the_recorded_families(tmp_path: Path) -> None:
    """A manifest whose families select everything would otherwise unset PATH and HOME."""
    here = {"PATH": "/usr/bin", "HOME": "/home/me", "OMP_NUM_THREADS": "4", "LD_PRELOAD": "x"}
    document = _recorded({"MKL_NUM_THREADS": "2"}, prefixes=[""], names=list(here))
    plan = plan_for(conditions_of(document), packages=False, base_env=here)
    assert plan.env_unset == ["OMP_NUM_THREADS"]
    assert {name: plan.env.get(name) for name in ("PATH", "HOME", "LD_PRELOAD")} == {
        "PATH": "/usr/bin", "HOME": "/home/me", "LD_PRELOAD": "x",
    }  # fmt: skip
    assert plan.env_set == {"MKL_NUM_THREADS": "2"}


def test_the_post_run_capture_environment_is_envsnaps_own_plus_the_plan(tmp_path: Path) -> None:
    document = _recorded({"OMP_NUM_THREADS": "3", "BROWSER": "bash", "PATH": "/evil"})
    plan = prepare(conditions_of(document), tmp_path, packages=None, base_env={"PATH": "/a"})
    env = environment_from(plan, {"PATH": "/usr/bin", "LANG": "C"})
    assert env["PATH"] == "/usr/bin" and env["LANG"] == "C" and env["OMP_NUM_THREADS"] == "3"
    assert "BROWSER" not in env
    assert env[startup.CONFIG_ENV] == str(tmp_path / "hook" / "config.json")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("default_dtype", "os.system"),
        ("default_dtype", "torch.os"),
        ("num_threads", 10**30),
        ("num_threads", True),
        ("cudnn.benchmark", "yes"),
        ("deterministic.algorithms", "os.system"),
        ("matmul.float32_matmul_precision", "__import__('os')"),
    ],
)
def test_hostile_torch_values_are_refused_when_read_and_by_the_hook(field: str, value: Any) -> None:
    section: dict[str, Any] = {}
    *owners, leaf = field.split(".")
    target = section
    for owner in owners:
        target = target.setdefault(owner, {})
    target[leaf] = value
    conditions = conditions_of({"torch": section})
    assert f"torch:{field}" not in conditions.values
    assert f"torch:{field}" in conditions.skipped

    class Torch:
        """A torch that records every attribute the hook asks it for."""

        def __init__(self) -> None:
            self.asked: list[str] = []

        def __getattr__(self, name: str) -> Any:
            self.asked.append(name)
            raise AttributeError(name)

    torch = Torch()
    outcome = startup.apply_torch(torch, {field: value}, None)
    assert outcome[field].startswith("failed: refused"), outcome
    assert torch.asked == []  # refused before anything is looked up on torch


@pytest.mark.parametrize(
    ("name", "version", "problem"),
    [
        ("numdefault", "2.0", None),
        ("zope.interface", "6.0+local.1", None),
        ("--index-url=http://x", "1.0", "not a package name"),
        ("x @ file:///w.whl", "1.0", "not a package name"),
        ('x; python_version>"0"', "1.0", "not a package name"),
        ("-e .", "1.0", "not a package name"),
        ("x[extra]", "1.0", "not a package name"),
        ("x", "1.0 @ file:///w.whl", "not a version"),
        ("x", ">=1.0", "not a version"),
        ("x", " 1.0", "not a version"),
        ("x", 1, "not a version"),
        ("nump\u212ay", "1.0", "not a package name"),
    ],
)
def test_package_pins_are_a_name_and_an_exact_version(
    name: str, version: Any, problem: str | None
) -> None:
    assert pin_problem(name, version) == problem


def test_the_default_work_dir_is_ignored_by_git(tmp_path: Path) -> None:
    """A run in a repository leaves `git status` clean: `.envsnap/` ignores itself."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=30)
    manifest = tmp_path / "b.json"
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "capture", "-o", str(manifest)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run = subprocess.run(
        [sys.executable, "-m", "envsnap", "run", "--as", str(manifest), "--yes", "-q",
         "--no-manifest", "--", sys.executable, "-c", "pass"],
        cwd=repo, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (repo / ".envsnap" / "run").is_dir()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo, capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    assert status.stdout == ""
