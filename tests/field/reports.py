"""Write a collect_env report in the exact format of the torch release whose script printed it.

A case whose thread states facts but posted no report gets the report that release's
`torch/utils/collect_env.py` would have printed from those facts. Users run the script of the
day (the issue template fetches it from master), so `release` names the script, not the torch
installed. Each line a release added, with where it came from:

- 0.4 (the script's first release): the base template, booleans as Yes/No, `pip list
  --format=legacy` (`[pip] numpy (1.14.3)`);
- 1.1: `--format=freeze` (`[pip3] numpy==1.16.1`), pytorch/pytorch#16798;
- 1.7: `ROCM used to build PyTorch`, `Clang version`, the machine after the OS
  (`Ubuntu 18.04.4 LTS (x86_64)`), the runtime's bitness after the Python version
  (pytorch/pytorch#42887, #42961), `HIP runtime version` / `MIOpen runtime version`
  (pytorch/pytorch#44106), and booleans as True/False (the sample outputs of #44106);
- 1.9: `Libc version` and `Python platform`, pytorch/pytorch#58485;
- 1.10: the full `sys.version` as the Python version (reports of late 2021 on; a June 2021
  report, pytorch/pytorch#60367, still prints `3.6 (64-bit runtime)`);
- 1.11: `Is XNNPACK available` (absent in June 2021, pytorch/pytorch#60367; present in
  October 2022, pytorch/pytorch#87992; the release in between is not pinned down);
- 1.13: `CUDA_MODULE_LOADING set to`, pytorch/pytorch#86509;
- 2.0: the `CPU:` block (lscpu), pytorch/pytorch#93899;
- 2.6: `Is XPU available`, pytorch/pytorch#137846;
- 2.10: `Caching allocator config` (absent in a July 2025 report, pytorch/pytorch#158398;
  printed by the 2.13 script).

The template, the "No CUDA" rule (a machine without CUDA prints "No CUDA" for the runtime,
GPUs, driver and cuDNN, and "None" for the build's CUDA), the multi-line GPU list that starts
on the next line and ends with a blank line, and "Probably one of the following:" before
several cuDNN candidates follow the script's `pretty_str`. A fact the case leaves out prints
as the script prints a value it could not read: "Could not collect" where the script's reader
returns None, "N/A" where it prints that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Facts = Mapping[str, Any]

RELEASES: tuple[str, ...] = (
    "0.4",
    *(f"1.{minor}" for minor in range(14)),
    *(f"2.{minor}" for minor in range(14)),
)
# The facts a rendered side may state (docs/field.md lists what each means).
FACT_KEYS = frozenset(
    {
        "torch",
        "debug",
        "cuda_build",
        "rocm_build",
        "os",
        "gcc",
        "clang",
        "cmake",
        "libc",
        "python",
        "platform",
        "cuda_available",
        "cuda_runtime",
        "cuda_module_loading",
        "gpus",
        "driver",
        "cudnn",
        "xpu_available",
        "hip_runtime",
        "miopen",
        "xnnpack",
        "allocator_config",
        "cpu",
        "pip",
        "pip_tag",
        "conda",
    }
)
CPU_KEYS = frozenset(
    {
        "arch",
        "cpus",
        "vendor",
        "model",
        "threads_per_core",
        "cores_per_socket",
        "sockets",
        "flags",
        "column",
        "lines",
    }
)
COULD_NOT = "Could not collect"
# platform.machine() values the script prints after the OS from 1.7 on.
MACHINES = frozenset({"x86_64", "aarch64", "arm64", "ppc64le", "s390x", "AMD64", "i686", "armv7l"})


def version_of(release: str) -> tuple[int, int]:
    major, minor = release.split(".")
    return int(major), int(minor)


def _since(release: str, first: str) -> bool:
    return version_of(release) >= version_of(first)


def _bool(value: Any, release: str) -> str:
    if value is None:
        return "N/A"
    if _since(release, "1.7"):
        return "True" if value else "False"
    return "Yes" if value else "No"


def _text(facts: Facts, key: str, unknown: str = COULD_NOT) -> str:
    value = facts.get(key)
    return unknown if value is None else str(value)


def _os(facts: Facts, release: str) -> str:
    """The OS line: from 1.7 the script prints the machine after it; before, it does not."""
    text = facts.get("os")
    if text is None:
        return COULD_NOT
    text = str(text)
    head, _, tail = text.rpartition(" (")
    if not _since(release, "1.7") and tail.rstrip(")") in MACHINES:
        return head  # 'Ubuntu 18.04 LTS (x86_64)', not 'CentOS Linux 7 (Core)'
    return text


def _python(facts: Facts, release: str) -> str:
    text = facts.get("python")
    if text is None:
        return COULD_NOT
    text = str(text)
    if not _since(release, "1.10"):
        text = ".".join(text.split()[0].split(".")[:2])
    return f"{text} (64-bit runtime)" if _since(release, "1.7") else text


def _gpus(facts: Facts) -> str | None:
    gpus = facts.get("gpus")
    if gpus is None:
        return None
    if isinstance(gpus, str):  # a ROCm report prints its own device line
        return gpus
    lines = [f"GPU {index}: {name}" for index, name in enumerate(gpus)]
    return "\n".join(lines)


def _cudnn(facts: Facts) -> str | None:
    cudnn = facts.get("cudnn")
    if cudnn is None or isinstance(cudnn, str):
        return cudnn
    files = sorted(str(path) for path in cudnn)
    if len(files) == 1:
        return files[0]
    return "Probably one of the following:\n" + "\n".join(files)


# lscpu's order of the lines the facts can state.
_LSCPU = (
    ("arch", "Architecture:"),
    ("cpus", "CPU(s):"),
    ("vendor", "Vendor ID:"),
    ("model", "Model name:"),
    ("threads_per_core", "Thread(s) per core:"),
    ("cores_per_socket", "Core(s) per socket:"),
    ("sockets", "Socket(s):"),
    ("flags", "Flags:"),
)


def _cpu(facts: Facts, release: str) -> str:
    """lscpu's output: names padded to one column, whose width is util-linux's (33 in the
    reports of 2023, 38 from 2024), unless the facts give it."""
    cpu = facts.get("cpu")
    if cpu is None:
        return "None"  # what the script prints when lscpu fails
    column = int(cpu.get("column") or (38 if _since(release, "2.5") else 33))
    if cpu.get("lines") is not None:
        pairs = [(str(name), str(value)) for name, value in cpu["lines"]]
    else:
        pairs = []
        for key, name in _LSCPU:
            value = cpu.get(key)
            if value is None:
                continue
            text = " ".join(value) if key == "flags" else str(value)
            pairs.append((name, text))
    return "\n".join(f"{name:<{column}}{value}" for name, value in pairs)


def _packages(facts: Facts, release: str) -> tuple[str, str]:
    tag = str(facts.get("pip_tag") or ("pip3" if _since(release, "1.1") else "pip"))
    pip = facts.get("pip")
    if pip is None:
        pip_text = f"[{tag}] {COULD_NOT}"
    elif not pip:
        pip_text = f"[{tag}] No relevant packages"
    else:
        legacy = not _since(release, "1.1")
        lines = [
            f"[{tag}] {name} ({version})" if legacy else f"[{tag}] {name}=={version}"
            for name, version in sorted(pip.items(), key=lambda item: item[0].lower())
        ]
        pip_text = "\n".join(lines)
    conda = facts.get("conda")
    if conda is None:
        conda_text = f"[conda] {COULD_NOT}"
    elif not conda:
        conda_text = "[conda] No relevant packages"
    else:
        conda_text = "\n".join(
            "[conda] " + _conda_line(name, entry) for name, entry in sorted(conda.items())
        )
    return pip_text, conda_text


def _conda_line(name: str, entry: Any) -> str:
    """`conda list`'s columns as reports show them: name padded to 25, version to 15, the build
    right-aligned in 15, two spaces, then the channel after two more (none for defaults)."""
    version, build, channel = (
        (str(entry), "", "") if isinstance(entry, str) else (*map(str, entry), "", "")[:3]
    )
    line = f"{name:<25} {version:<15} {build:>15}  "
    return f"{line}  {channel}" if channel else line


def _no_cuda(facts: Facts) -> bool:
    """The script's rule: CUDA is not available and none of its runtime facts was found."""
    dynamic = ("cuda_runtime", "gpus", "driver")
    return facts.get("cuda_available") is False and all(facts.get(k) is None for k in dynamic)


def render(release: str, facts: Facts) -> str:
    """The report `release`'s collect_env.py prints for a machine with these facts."""
    if release not in RELEASES:
        raise ValueError(f"unknown release {release!r} (known: {', '.join(RELEASES)})")
    unknown = sorted(set(facts) - FACT_KEYS)
    if unknown:
        raise ValueError(f"unknown facts: {', '.join(unknown)}")
    since = lambda first: _since(release, first)  # noqa: E731
    gpus, cudnn = _gpus(facts), _cudnn(facts)
    runtime, driver = facts.get("cuda_runtime"), facts.get("driver")
    no_cuda = _no_cuda(facts)
    if facts.get("cuda_build") is not None:
        cuda_build = str(facts["cuda_build"])
    elif since("1.7") and facts.get("rocm_build"):
        cuda_build = "N/A"  # the script's value for a ROCm build
    elif no_cuda and "cuda_build" in facts:
        cuda_build = "None"
    else:
        cuda_build = COULD_NOT
    if no_cuda:
        runtime_text = gpus_text = driver_text = cudnn_text = "No CUDA"
    else:
        runtime_text = COULD_NOT if runtime is None else str(runtime)
        gpus_text = COULD_NOT if gpus is None else gpus
        driver_text = COULD_NOT if driver is None else str(driver)
        cudnn_text = COULD_NOT if cudnn is None else cudnn
    if "\n" in gpus_text:
        gpus_text = f"\n{gpus_text}\n"
    lines = [
        "Collecting environment information...",
        f"PyTorch version: {_text(facts, 'torch', 'N/A')}",
        f"Is debug build: {_bool(facts.get('debug'), release)}",
        f"CUDA used to build PyTorch: {cuda_build}",
    ]
    if since("1.7"):
        lines.append(f"ROCM used to build PyTorch: {_text(facts, 'rocm_build', 'N/A')}")
    lines += ["", f"OS: {_os(facts, release)}", f"GCC version: {_text(facts, 'gcc')}"]
    if since("1.7"):
        lines.append(f"Clang version: {_text(facts, 'clang')}")
    lines.append(f"CMake version: {_text(facts, 'cmake')}")
    if since("1.9"):
        lines.append(f"Libc version: {_text(facts, 'libc', 'N/A')}")
    lines += ["", f"Python version: {_python(facts, release)}"]
    if since("1.9"):
        lines.append(f"Python platform: {_text(facts, 'platform', 'N/A')}")
    lines += [
        f"Is CUDA available: {_bool(facts.get('cuda_available'), release)}",
        f"CUDA runtime version: {runtime_text}",
    ]
    if since("1.13"):
        loading = facts.get("cuda_module_loading")
        lines.append(f"CUDA_MODULE_LOADING set to: {'N/A' if loading is None else loading}")
    lines += [
        f"GPU models and configuration: {gpus_text}",
        f"Nvidia driver version: {driver_text}",
        f"cuDNN version: {cudnn_text}",
    ]
    if since("2.6"):
        lines.append(f"Is XPU available: {_bool(facts.get('xpu_available'), release)}")
    if since("1.7"):
        lines.append(f"HIP runtime version: {_text(facts, 'hip_runtime', 'N/A')}")
        lines.append(f"MIOpen runtime version: {_text(facts, 'miopen', 'N/A')}")
    if since("1.11"):
        lines.append(f"Is XNNPACK available: {_bool(facts.get('xnnpack'), release)}")
    if since("2.10"):
        config = facts.get("allocator_config")
        lines.append(f"Caching allocator config: {config if config else 'N/A'}")
    if since("2.0"):
        lines += ["", "CPU:", _cpu(facts, release)]
    pip_text, conda_text = _packages(facts, release)
    lines += ["", "Versions of relevant libraries:", pip_text, conda_text]
    # A multi-line GPU list brings its own newlines: it starts on the next line and is
    # followed by a blank one, as the script's template prints it.
    return "\n".join(lines) + "\n"
