"""The noise model: the harmless differences two real machines have, drawn per case and side.

It follows the noise reference the project was given ("What two real runs differ in when nothing that
matters changed"), item by item, wherever a route can hold the item:

- Machine and OS: the user's name and home in every path and the checkout path (capture,
  nvml); the kernel patch level in the platform string, the OS point release and the glibc
  family that goes with it (imported reports); the GPU driver patch within one branch (nvml,
  and reports that state only the branch); GPU UUIDs and PCI bus ids (nvml); time zone,
  locale, TERM, SHELL, COLUMNS, TMPDIR and EDITOR (capture, nvml: the job's real environment).
- Python environment: a Python patch release (reports; a capture runs this machine's one
  interpreter); unrelated packages bumped and packages present on one side only, planted as
  real distributions (capture, nvml), and the filtered packages a report lists that the job
  never imports (mypy, flake8, onnx); cache and home directories (HF_HOME, TRANSFORMERS_CACHE,
  TORCH_HOME, XDG_CACHE_HOME, the Inductor cache dir).
- The run: output-directory, run-name and logging flags on the command line; untracked logs,
  outputs, `wandb/`, `mlruns/`, notebook checkpoints and a lock file present on one side only
  in the repository; SLURM job ids; NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, MASTER_ADDR and
  MASTER_PORT (capture, nvml). `created_at`, pids and run ids differ in every real capture
  without any help.

Not drawn, because noise.md's "Not noise" list says they matter: thread counts, PYTHONHASHSEED,
worker seeds, drop_last, libraries the job imports, the driver branch, the GPU model. Nor is
`--num_workers` drawn: it is harmless only for a loader without random augmentation that is
seeded per worker, which the model cannot know of a case.

Noise never touches a fact the case states: a variable either side names, a package either
side names, a flag the side's command line has, a report field either side states (and for a
posted report, nothing at all: it is verbatim). A draw is seeded from the case id, the draw
index and the side, so every run of the corpus draws the same noise.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from tests.field.drivers import PATCHES, branch_of, is_branch_only

DRAWS = 3
Case = dict[str, Any]

USERS = ("alice", "bob", "carol", "dmitri", "mei", "ravi", "sam", "ana", "kofi", "lena")
CHECKOUT_PARENTS = ("work", "src", "code", "projects", "repos")
PROJECT_SUFFIXES = ("", "-main", "-dev", "-fork", "2")
LOCALES = ("C.UTF-8", "en_US.UTF-8", "en_GB.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8")
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney")
TERMS = ("xterm-256color", "screen-256color", "tmux-256color", "dumb", "xterm")
SHELLS = ("/bin/bash", "/usr/bin/zsh", "/bin/sh", "/usr/bin/fish")
COLUMNS = ("80", "120", "160", "211")
EDITORS = ("vim", "nano", "emacs -nw", "code --wait")
IFNAMES = ("eth0", "ens5", "ib0", "bond0", "enp0s31f6")

# Real releases from each package's PyPI history (https://pypi.org/project/<name>/#history).
BUMPABLE: dict[str, tuple[str, ...]] = {
    "pip": ("23.0.1", "23.2.1", "23.3.1", "24.0", "24.2", "24.3.1"),
    "setuptools": ("65.5.0", "68.2.2", "69.0.3", "69.5.1", "70.0.0", "75.1.0"),
    "wheel": ("0.41.2", "0.42.0", "0.43.0", "0.44.0"),
    "certifi": ("2023.7.22", "2023.11.17", "2024.2.2", "2024.7.4", "2024.8.30"),
    "urllib3": ("1.26.18", "2.0.7", "2.1.0", "2.2.1", "2.2.3"),
    "requests": ("2.28.2", "2.31.0", "2.32.2", "2.32.3"),
    "idna": ("3.4", "3.6", "3.7", "3.10"),
    "charset-normalizer": ("3.2.0", "3.3.2", "3.4.0"),
    "tqdm": ("4.65.0", "4.66.1", "4.66.4", "4.66.5"),
    "packaging": ("23.1", "23.2", "24.0", "24.1"),
    "filelock": ("3.12.4", "3.13.1", "3.15.4", "3.16.1"),
    "fsspec": ("2023.10.0", "2024.2.0", "2024.6.1", "2024.9.0"),
    "typing-extensions": ("4.7.1", "4.9.0", "4.11.0", "4.12.2"),
    "psutil": ("5.9.5", "5.9.8", "6.0.0", "6.1.0"),
    "rich": ("13.5.2", "13.7.0", "13.7.1", "13.9.2"),
    "click": ("8.1.3", "8.1.6", "8.1.7"),
}
# Tools a developer has installed that a training job never imports; none of them is in
# envsnap's dev extras, so planting one makes it present on that side only.
ONE_SIDED: dict[str, tuple[str, ...]] = {
    "ipython": ("8.12.3", "8.18.1", "8.26.0"),
    "jupyter-core": ("5.3.1", "5.7.2"),
    "black": ("23.12.1", "24.4.2", "24.8.0"),
    "matplotlib": ("3.7.3", "3.8.4", "3.9.2"),
    "pre-commit": ("3.5.0", "3.7.1"),
    "debugpy": ("1.8.1", "1.8.5"),
}
# What collect_env's pip filter lists besides torch and numpy (mypy, flake8 and onnx match
# its patterns: `[pip3] mypy-extensions==0.4.3` in pytorch/pytorch#87992); none is imported by
# a training job. onnx joined the filter later than mypy and flake8.
REPORT_FILTERED: dict[str, tuple[str, tuple[str, ...]]] = {
    "mypy-extensions": ("1.13", ("0.4.3", "0.4.4", "1.0.0")),
    "mypy": ("1.13", ("1.4.1", "1.8.0", "1.11.2")),
    "flake8": ("1.13", ("6.0.0", "6.1.0", "7.0.0")),
    "onnx": ("2.1", ("1.14.1", "1.15.0", "1.16.2")),
}

# Linux distributions as collect_env prints them, with the kernels and glibc they ship
# (Ubuntu's kernel and glibc per release: https://ubuntu.com/about/release-cycle and
# https://packages.ubuntu.com/search?keywords=libc6; Debian's: https://www.debian.org/releases/).
DISTROS: dict[str, dict[str, Any]] = {
    "Ubuntu 20.04": {
        "points": ("Ubuntu 20.04.4 LTS", "Ubuntu 20.04.5 LTS", "Ubuntu 20.04.6 LTS"),
        "kernel": "5.4.0-{n}-generic",
        "patches": (104, 122, 137, 150, 169),
        "glibc": "2.31",
        "python": "3.8",
    },
    "Ubuntu 22.04": {
        "points": ("Ubuntu 22.04.3 LTS", "Ubuntu 22.04.4 LTS", "Ubuntu 22.04.5 LTS"),
        "kernel": "5.15.0-{n}-generic",
        "patches": (88, 91, 97, 105, 119),
        "glibc": "2.35",
        "python": "3.10",
    },
    "Ubuntu 24.04": {
        "points": ("Ubuntu 24.04.1 LTS", "Ubuntu 24.04.2 LTS", "Ubuntu 24.04.3 LTS"),
        "kernel": "6.8.0-{n}-generic",
        "patches": (31, 45, 51, 60, 85),
        "glibc": "2.39",
        "python": "3.12",
    },
}
# Patch releases of CPython (https://www.python.org/downloads/).
PYTHON_PATCHES: dict[str, tuple[int, ...]] = {
    "3.6": (9, 10, 13, 15),
    "3.7": (10, 12, 13, 16),
    "3.8": (10, 12, 13, 16, 18),
    "3.9": (7, 12, 16, 18),
    "3.10": (6, 9, 12, 13, 14),
    "3.11": (4, 5, 7, 9),
    "3.12": (1, 3, 4, 7),
}
# The Python a release's users ran when a report states none: one its wheels were built for
# (https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix).
_PYTHON_FOR_TORCH = (((1, 8), "3.7"), ((1, 12), "3.8"), ((2, 0), "3.9"), ((2, 3), "3.10"))
_FULL_PYTHON = re.compile(r"^\d+\.\d+\.\d+")
_SHORT_PYTHON = re.compile(r"^(\d+\.\d+)$")


@dataclass(frozen=True)
class Noise:
    """One side's harmless differences. A route uses the fields it can hold."""

    user: str = "alice"
    checkout: str = "work/job"  # relative to the user's home
    env: dict[str, str] = field(default_factory=dict)  # HOME-relative values use {home}
    argv: tuple[str, ...] = ()
    untracked: dict[str, str] = field(default_factory=dict)  # repo path -> content
    packages: dict[str, str] = field(default_factory=dict)  # planted distributions
    gpu_ids: tuple[tuple[str, str], ...] = ()  # (uuid, pci bus id) per board
    driver: str | None = None  # the nvml driver, when the case leaves the patch open
    report: dict[str, Any] = field(default_factory=dict)  # facts filled in a rendered report

    def as_dict(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "checkout": self.checkout,
            "env": dict(self.env),
            "argv": list(self.argv),
            "untracked": dict(self.untracked),
            "packages": dict(self.packages),
            "gpu_ids": [list(pair) for pair in self.gpu_ids],
            "driver": self.driver,
            "report": dict(self.report),
        }


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def draw(case: Case, side: str, draw_index: int) -> Noise:
    """The noise of one side of one case in one draw."""
    # Choices both sides share (which packages are bumped, which distribution family) come
    # from a generator of their own, so the two sides' draws never shift each other.
    shared = _rng(case["id"], draw_index, "shared")
    mine = _rng(case["id"], draw_index, side)
    route = case["route"]
    if route == "imported":
        return Noise(report=_report_noise(case, side, shared, mine))
    return _job_noise(case, side, shared, mine)


# -- capture and nvml ---------------------------------------------------------------------


def _stated_env(case: Case) -> set[str]:
    return {name for side in ("a", "b") for name in (case[side].get("env") or {})}


def _stated_packages(case: Case) -> set[str]:
    names: set[str] = set()
    for side in ("a", "b"):
        names.update(_canonical(name) for name in case[side].get("packages") or {})
        names.update(_canonical(name) for name in case[side].get("cuda_libs") or {})
    return names


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _job_noise(case: Case, side: str, shared: random.Random, mine: random.Random) -> Noise:
    user = mine.choice(USERS)
    project = re.sub(r"[^a-z0-9]+", "-", case["id"].split("-")[0].lower()) or "job"
    checkout = f"{mine.choice(CHECKOUT_PARENTS)}/{project}{mine.choice(PROJECT_SUFFIXES)}"
    return Noise(
        user=user,
        checkout=checkout,
        env=_env_noise(case, user, mine),
        argv=_argv_noise(case[side], mine),
        untracked=_untracked_noise(mine),
        packages=_package_noise(case, shared, mine),
        gpu_ids=_gpu_ids(case[side], mine),
        driver=_driver_noise(case, side, mine),
    )


def _env_noise(case: Case, user: str, rng: random.Random) -> dict[str, str]:
    """Variables of the job's process; each present with a chance, the same way a login on
    another machine has some of them and not others."""
    candidates: dict[str, str] = {
        "LANG": rng.choice(LOCALES),
        "TZ": rng.choice(ZONES),
        "TERM": rng.choice(TERMS),
        "SHELL": rng.choice(SHELLS),
        "COLUMNS": rng.choice(COLUMNS),
        "EDITOR": rng.choice(EDITORS),
        "TMPDIR": rng.choice(("{home}/tmp", "{root}/scratch/tmp", "{root}/tmp-" + user)),
        "HF_HOME": rng.choice(("{home}/.cache/huggingface", "{root}/scratch/" + user + "/hf")),
        "TRANSFORMERS_CACHE": "{home}/.cache/huggingface/hub",
        "TORCH_HOME": rng.choice(("{home}/.cache/torch", "{root}/models/torch")),
        "XDG_CACHE_HOME": "{home}/.cache",
        "TORCHINDUCTOR_CACHE_DIR": "{root}/torchinductor_" + user,
        "SLURM_JOB_ID": str(rng.randrange(100000, 99999999)),
        "NCCL_SOCKET_IFNAME": rng.choice(IFNAMES),
        "GLOO_SOCKET_IFNAME": rng.choice(IFNAMES),
        "MASTER_ADDR": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
        "MASTER_PORT": str(rng.randrange(20000, 40000)),
    }
    stated = _stated_env(case)
    chosen = {"LANG", "TZ"} | {name for name in candidates if rng.random() < 0.5}
    return {name: candidates[name] for name in sorted(chosen) if name not in stated}


_ARGV_FLAGS = ("--output_dir", "--run_name", "--log-every", "--report_to", "--logging_dir")


def _argv_noise(side: Case, rng: random.Random) -> tuple[str, ...]:
    stated = [str(arg) for arg in (side.get("job") or {}).get("argv") or []]
    name = f"{rng.choice(('run', 'exp', 'try'))}-{rng.randrange(1000)}"
    values = {
        "--output_dir": f"runs/{name}",
        "--run_name": name,
        "--log-every": str(rng.choice((10, 25, 50, 100))),
        "--report_to": rng.choice(("none", "wandb", "tensorboard")),
        "--logging_dir": f"logs/{name}",
    }
    flags: list[str] = []
    for flag in _ARGV_FLAGS:
        if rng.random() < 0.5 and not any(arg.split("=")[0] == flag for arg in stated):
            flags += [flag, values[flag]]
    return tuple(flags)


def _untracked_noise(rng: random.Random) -> dict[str, str]:
    run = f"{rng.randrange(16**8):08x}"
    candidates = {
        f"logs/train-{run}.log": f"step 1 loss {rng.random():.4f}\n",
        f"outputs/{run}/metrics.json": json.dumps({"loss": round(rng.random(), 4)}) + "\n",
        f"wandb/run-{run}/files/config.yaml": "wandb_version: 1\n",
        f"mlruns/0/{run}/meta.yaml": f"run_id: {run}\n",
        ".ipynb_checkpoints/explore-checkpoint.ipynb": '{"cells": []}\n',
        "uv.lock": f"version = 1\n# resolved {run}\n",
    }
    return {path: text for path, text in candidates.items() if rng.random() < 0.4}


def _package_noise(case: Case, shared: random.Random, mine: random.Random) -> dict[str, str]:
    stated = _stated_packages(case)
    bumped = shared.sample(sorted(BUMPABLE), k=3)
    planted = {name: mine.choice(BUMPABLE[name]) for name in bumped if name not in stated}
    for name in sorted(ONE_SIDED):
        if mine.random() < 0.25 and name not in stated:
            planted[name] = mine.choice(ONE_SIDED[name])
    return planted


def _gpu_ids(side: Case, rng: random.Random) -> tuple[tuple[str, str], ...]:
    ids = []
    for _ in side.get("gpus") or []:
        words = [f"{rng.randrange(16**n):0{n}x}" for n in (8, 4, 3, 3, 12)]
        uuid = f"GPU-{words[0]}-{words[1]}-4{words[2]}-8{words[3]}-{words[4]}"
        ids.append((uuid, f"00000000:{rng.randrange(1, 256):02X}:00.0"))
    return tuple(ids)


# The branch an nvml side runs when neither side states a driver: 550 supports every GPU
# file's board and CUDA up to 12.4 (drivers.py).
DEFAULT_BRANCH = "550"


def _driver_noise(case: Case, side: str, rng: random.Random) -> str | None:
    if case["route"] != "nvml":
        return None
    stated = case[side].get("driver")
    if stated is not None and not is_branch_only(str(stated)):
        return None
    branch = branch_of(str(stated)) if stated is not None else DEFAULT_BRANCH
    return rng.choice(PATCHES[branch or DEFAULT_BRANCH])


# -- imported reports -----------------------------------------------------------------------


def _rendered(case: Case) -> bool:
    return all("facts" in case[side] for side in ("a", "b"))


def _facts(case: Case, side: str) -> dict[str, Any]:
    return dict(case[side].get("facts") or {})


def _release_at_least(case: Case, side: str, first: str) -> bool:
    from tests.field.reports import version_of

    release = case[side].get("release")
    return release is not None and version_of(str(release)) >= version_of(first)


def _report_noise(
    case: Case, side: str, shared: random.Random, mine: random.Random
) -> dict[str, Any]:
    """Facts to fill in a rendered report: only fields neither side states (then both sides
    get values of one family, differing in the patch), a patch where the case states only the
    series ('3.10', driver '535'), and the torch release one side states, on the other."""
    if "facts" not in case[side]:
        return {}  # a posted report is verbatim
    facts = _facts(case, side)
    both = [_facts(case, s) for s in ("a", "b") if "facts" in case[s]]

    def unstated(key: str) -> bool:
        return _rendered(case) and all(key not in f for f in both)

    filled: dict[str, Any] = {}
    family = shared.choice(sorted(DISTROS))
    series_choice = shared.choice(("3.10", "3.11"))
    distro = _distro(facts) or DISTROS[family]
    if unstated("os") and _linux(case):
        arch = (facts.get("cpu") or {}).get("arch", "x86_64")
        filled["os"] = f"{mine.choice(distro['points'])} ({arch})"
    if unstated("platform") and _linux(case) and _release_at_least(case, side, "1.9"):
        kernel = distro["kernel"].format(n=mine.choice(distro["patches"]))
        glibc = str(facts.get("libc", f"glibc-{distro['glibc']}")).removeprefix("glibc-")
        filled["platform"] = f"Linux-{kernel}-x86_64-with-glibc{glibc}"
    python = facts.get("python")
    if python is None and unstated("python"):
        # One series on both sides, patch levels apart: the series the older torch ran on, or
        # the older distribution shipped (a minor Python step is a difference, not noise).
        series = min(
            (
                _python_for(f.get("torch"), _distro(f) or DISTROS[family], series_choice)
                for f in both
            ),
            key=lambda text: tuple(int(part) for part in text.split(".")),
        )
        filled["python"] = f"{series}.{mine.choice(PYTHON_PATCHES[series])}"
    elif isinstance(python, str) and (short := _SHORT_PYTHON.match(python)):
        series = short.group(1)
        if series in PYTHON_PATCHES:
            filled["python"] = f"{series}.{mine.choice(PYTHON_PATCHES[series])}"
    if "torch" not in facts and _rendered(case):
        # The script prints the torch it imported ("N/A" only when none imports): a release the
        # thread states for one side only is the other side's stand-in too, not "no torch";
        # its public release only, as the local tag (+cu115) is the build, which may differ.
        stated = [str(f["torch"]).split("+", 1)[0] for f in both if "torch" in f]
        if stated:
            filled["torch"] = stated[0]
    driver = facts.get("driver")
    if isinstance(driver, str) and is_branch_only(driver) and driver in PATCHES:
        filled["driver"] = mine.choice(PATCHES[driver])
    pip = facts.get("pip")
    if isinstance(pip, dict) and _rendered(case) and all("pip" in f for f in both):
        stated = {_canonical(name) for f in both for name in f.get("pip") or {}}
        extras = dict(pip)
        for name, (first, versions) in sorted(REPORT_FILTERED.items()):
            if name in stated or not _release_at_least(case, side, first):
                continue
            if mine.random() < 0.4:
                extras[name] = mine.choice(versions)
        if extras != pip:
            filled["pip"] = extras
    return filled


def _distro(facts: dict[str, Any]) -> dict[str, Any] | None:
    text = str(facts.get("os") or "")
    for name, distro in DISTROS.items():
        if text.startswith(name):
            return distro
    return None


def _linux(case: Case) -> bool:
    """Neither side is a Windows or macOS machine (their reports print no kernel)."""
    for side in ("a", "b"):
        text = " ".join(str(_facts(case, side).get(k) or "") for k in ("os", "platform"))
        if any(word in text for word in ("Windows", "macOS", "Mac OSX", "Darwin")):
            return False
    return True


def _python_for(torch: Any, distro: dict[str, Any], recent: str) -> str:
    if isinstance(torch, str) and (match := re.match(r"^(\d+)\.(\d+)", torch)):
        version = (int(match[1]), int(match[2]))
        for below, series in _PYTHON_FOR_TORCH:
            if version < below:
                return series
        return recent
    return str(distro["python"])


def summary(noise: Noise) -> list[str]:
    """One line per harmless difference drawn, for `python -m tests.field --noise`."""
    lines = [f"checkout ~{noise.user}/{noise.checkout}"]
    lines += [f"env {name}={value}" for name, value in sorted(noise.env.items())]
    lines += [f"argv {' '.join(noise.argv)}"] if noise.argv else []
    lines += [f"untracked {path}" for path in sorted(noise.untracked)]
    lines += [f"package {name}=={version}" for name, version in sorted(noise.packages.items())]
    lines += [f"gpu {uuid} {pci}" for uuid, pci in noise.gpu_ids]
    lines += [f"driver {noise.driver}"] if noise.driver else []
    lines += [f"report {key}={value}" for key, value in sorted(noise.report.items())]
    return lines
