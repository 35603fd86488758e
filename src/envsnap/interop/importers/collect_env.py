"""Read the text that `python -m torch.utils.collect_env` prints, in every form since 2018.

The format is a fixed template of `Label: value` lines (torch/utils/collect_env.py), whose labels
were added one release at a time: `Clang version`, `Libc version`, `Python platform`,
`CUDA_MODULE_LOADING set to`, the `CPU:` block, XPU, `Caching allocator config`... Old releases
print booleans as Yes/No, newer ones as True/False. Reports reach us pasted into issues and mail,
so the reader is lenient about layout: Markdown fences and backticks, quote markers, trailing
spaces, missing blank lines, lines wrapped by an editor, warnings printed before the report, and
a report cut off in the middle. It is strict about meaning: "Could not collect" is unknown, and
a value the report does not print is never filled in.

`parse_report` turns text into a `Report` (raw strings per label); `to_imported` maps a report
onto the manifest's sections.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.interop.importers.base import Imported
from envsnap.interop.importers.devices import complete, from_name
from envsnap.interop.importers.platform import MACHINES, libc_from, parse_platform

FORMAT = "collect-env"
COULD_NOT_COLLECT = "collect_env report: Could not collect"
NO_CUDA = "collect_env report: No CUDA"

# Label as printed -> key. Labels a report prints over several lines are in MULTILINE.
LABELS: dict[str, str] = {
    "PyTorch version": "torch_version",
    "Is debug build": "debug_build",
    "CUDA used to build PyTorch": "cuda_build",
    "ROCM used to build PyTorch": "hip_build",
    "OS": "os",
    "GCC version": "gcc",
    "Clang version": "clang",
    "CMake version": "cmake",
    "Libc version": "libc",
    "Python version": "python_version",
    "Python platform": "python_platform",
    "Is CUDA available": "cuda_available",
    "CUDA runtime version": "cuda_runtime",
    "CUDA_MODULE_LOADING set to": "cuda_module_loading",
    "GPU models and configuration": "gpus",
    "Nvidia driver version": "driver",
    "cuDNN version": "cudnn",
    "Is XPU available": "xpu_available",
    "XPU used to build PyTorch": "xpu_build",
    "Intel GPU driver version": "intel_driver",
    "Intel GPU models onboard": "intel_onboard",
    "Intel GPU models detected": "intel_detected",
    "HIP runtime version": "hip_runtime",
    "MIOpen runtime version": "miopen",
    "Is XNNPACK available": "xnnpack",
    "Caching allocator config": "allocator",
    "CPU": "cpu",
    "Versions of relevant libraries": "libraries",
}
MULTILINE = frozenset(
    {"gpus", "cudnn", "intel_driver", "intel_onboard", "intel_detected", "cpu", "libraries"}
)
_LABEL_RE = re.compile(
    r"^(?P<label>"
    + "|".join(re.escape(label) for label in sorted(LABELS, key=len, reverse=True))
    + r")\s*:\s*(?P<value>.*)$",
    re.IGNORECASE,
)
_KEY_BY_LOWER = {label.lower(): key for label, key in LABELS.items()}
# `[pip3] torch==2.1.0`, `[pip] numpy==1.24.1`, `[conda] pytorch 2.1.0 py3.10_cuda11.8_0 pytorch`
_PACKAGE_RE = re.compile(r"^\[(?P<manager>pip3?|conda)\]\s*(?P<rest>.*)$", re.IGNORECASE)
_GPU_RE = re.compile(r"^GPU (?P<index>\d+): (?P<name>.+?)(?: \(UUID: [^)]*\))?$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_HTML_RE = re.compile(r"^\s*</?(details|summary)\b[^>]*>.*$", re.IGNORECASE)
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Enough distinctive labels that text is a report, not a file that happens to hold "OS:".
MIN_LABELS = 2
_GENERIC_KEYS = frozenset({"os", "cpu"})


@dataclass
class Report:
    """A collect_env report as printed: raw values by key, and the multi-line blocks."""

    values: dict[str, str] = field(default_factory=dict)
    blocks: dict[str, list[str]] = field(default_factory=dict)
    packages: list[tuple[str, str]] = field(default_factory=list)


def _clean_lines(text: str) -> list[str]:
    """Undo what pasting does: fences, HTML wrappers, quote markers, backticks, bullets."""
    lines: list[str] = []
    for raw in _ANSI_RE.sub("", text).splitlines():
        if _FENCE_RE.match(raw) or _HTML_RE.match(raw):
            continue
        line = raw.replace("`", "").rstrip()
        while line.lstrip().startswith(">"):
            line = line.lstrip()[1:].lstrip(" ")
        lines.append(line)
    return lines


def _label_of(line: str) -> re.Match[str] | None:
    stripped = line.strip()
    match = _LABEL_RE.match(stripped)
    if match is None and stripped[:2] in ("- ", "* "):
        # A Markdown list around the report ("- PyTorch version: 2.1.0").
        match = _LABEL_RE.match(stripped[2:].lstrip())
    return match


def parse_report(text: str) -> Report:
    """Read the fields of a collect_env report. Raises ManifestError when there are none."""
    report = Report()
    current: str | None = None
    seen = 0
    for line in _clean_lines(text):
        package = _PACKAGE_RE.match(line.strip())
        if package:
            report.packages.append((package["manager"].lower(), package["rest"].strip()))
            report.blocks.setdefault("libraries", [])
            current = "libraries"
            continue
        match = _label_of(line)
        if match:
            key = _KEY_BY_LOWER[match["label"].lower()]
            value = match["value"].strip()
            seen += key not in _GENERIC_KEYS
            if key in MULTILINE:
                report.blocks.setdefault(key, [])
                if value:
                    report.blocks[key].append(value)
            else:
                report.values[key] = value
            current = key
            continue
        if current is None:
            continue  # warnings or chatter before the report starts
        if not line.strip():
            # A blank line ends a one-line field (so later chatter is not glued onto it); a
            # block such as the GPU list may start after a blank line, so it stays open.
            if current not in MULTILINE:
                current = None
            continue
        if current in MULTILINE:
            report.blocks.setdefault(current, []).append(line.strip())
        else:
            # An editor wrapped a long line: the rest belongs to the field above.
            report.values[current] = f"{report.values[current]} {line.strip()}".strip()
    if seen < MIN_LABELS:
        raise ManifestError("not a collect_env report (no 'PyTorch version:'-style fields found)")
    return report


# --- value helpers -------------------------------------------------------------------------


def _bool(value: str | None) -> bool | None:
    if value is None:
        return None
    return {"yes": True, "true": True, "no": False, "false": False}.get(value.strip().lower())


def _is_na(value: str) -> bool:
    return value.strip().lower() in ("n/a", "none")


def _version_in(path: str) -> str | None:
    """Version from a library file name: libcudnn.so.8.9.2 -> 8.9.2, cudnn64_8.dll -> 8."""
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", name) or re.search(r"64_(\d+)\.dll$", name)
    return match.group(1) if match else None


def _directory(path: str) -> str:
    return str(PureWindowsPath(path).parent if "\\" in path else PurePosixPath(path).parent)


_OS_MACHINE = re.compile(rf"\s*\((?P<machine>{MACHINES})\)$")


# --- mapping onto sections -----------------------------------------------------------------


class _Mapper:
    """Fills an `Imported` from a `Report`, one section at a time."""

    def __init__(self, report: Report, redactor: Redactor) -> None:
        self.report = report
        self.redactor = redactor
        self.out = Imported(format=FORMAT)

    def value(self, key: str) -> str | None:
        """The raw value, or None when the report does not print the line at all."""
        return self.report.values.get(key)

    def known(self, section: str, name: str, key: str) -> str | None:
        """A value that is stated; records why when it is missing or "Could not collect"."""
        raw = self.value(key)
        if raw is None:
            self.out.put_unknown(section, name)
            return None
        if raw in ("", "Could not collect"):
            self.out.put_unknown(section, name, COULD_NOT_COLLECT)
            return None
        if raw == "No CUDA":
            self.out.put_unknown(section, name, NO_CUDA)
            return None
        return raw

    def fact(self, name: str, value: Any) -> None:
        if value is not None and value != "Could not collect":
            self.out.facts[name] = value

    def run(self) -> Imported:
        self.cuda_stack()
        self.torch()
        self.gpu()
        self.python()
        self.system()
        self.env()
        self.packages()
        self.facts()
        return self.out

    def cuda_stack(self) -> None:
        version = self.known("cuda_stack", "torch_version", "torch_version")
        if version is not None and _is_na(version):
            self.out.put("cuda_stack", "torch_version", None)  # torch was not importable
            version = None
        self.out.put("cuda_stack", "torch_version", version)
        cuda = self.known("cuda_stack", "torch_cuda", "cuda_build")
        hip = self.known("cuda_stack", "torch_hip", "hip_build")
        cuda_stated = None if cuda is None or _is_na(cuda) else cuda
        hip_stated = None if hip is None or _is_na(hip) else hip
        self.out.put("cuda_stack", "torch_cuda", cuda_stated)
        self.out.put("cuda_stack", "torch_hip", hip_stated)
        build: str | None = None
        # The tag is derived as the cuda_stack collector derives it, but only from stated
        # values: a CUDA line that says "Could not collect" does not make a CPU build.
        if version and ("+" in version or cuda_stated or hip_stated or None not in (cuda, hip)):
            from envsnap.capturing.collectors.cuda_stack import TorchFiles, build_tag

            files = TorchFiles(Path(), version, cuda_stated, hip_stated, None, from_conda=False)
            build = build_tag(files)
        if build is None:
            self.out.put_unknown("cuda_stack", "torch_build")
        else:
            self.out.put("cuda_stack", "torch_build", build)
        for name in ("torch_path", "torch_git_version"):
            self.out.put_unknown("cuda_stack", name)
        self.out.put("cuda_stack", "libraries", self.cudnn())

    def cudnn(self) -> dict[str, Any]:
        lines = self.report.blocks.get("cudnn")
        if lines is None:
            self.out.note_unknown("cuda_stack", "libraries.cudnn")
            return {}
        first = lines[0] if lines else ""
        if first in ("", "Could not collect", "No CUDA"):
            reason = NO_CUDA if first == "No CUDA" else COULD_NOT_COLLECT
            self.out.note_unknown("cuda_stack", "libraries.cudnn", reason)
            return {}
        paths = [line for line in lines if not line.lower().startswith("probably one of")]
        copies: list[dict[str, Any]] = []
        for path in paths:
            entry = {
                "source": "system",
                "version": _version_in(path),
                "package": None,
                "path": _directory(path),
            }
            if entry not in copies:
                copies.append(entry)
        # collect_env lists the system's libcudnn files, not the copy torch loads (pytorch#78489).
        self.out.note_unknown(
            "cuda_stack",
            "libraries.cudnn.version",
            "collect_env report lists system cuDNN files, not the copy torch loads",
        )
        return {
            "cudnn": {
                "version": None,
                "selected": None,
                "reason": f"collect_env report lists {len(paths)} system cuDNN file(s); "
                "which one torch loads is not stated",
                "copies": copies,
            }
        }

    def torch(self) -> None:
        version = self.value("torch_version")
        if version is None or version in ("Could not collect",) or _is_na(version):
            return
        self.out.put("torch", "version", version)
        cuda = self.known("torch", "cuda", "cuda_build")
        hip = self.known("torch", "hip", "hip_build")
        self.out.put("torch", "cuda", None if cuda is None or _is_na(cuda) else cuda)
        self.out.put("torch", "hip", None if hip is None or _is_na(hip) else hip)
        available = _bool(self.value("cuda_available"))
        if available is None:
            self.out.put_unknown("torch", "cuda_available")
        else:
            self.out.put("torch", "cuda_available", available)

    def gpu(self) -> None:
        lines = self.report.blocks.get("gpus")
        if not lines or lines[0] in ("Could not collect", "No CUDA"):
            return
        devices: dict[str, dict[str, Any]] = {}
        for line in lines:
            match = _GPU_RE.match(line)
            if match:
                devices[match["index"]] = {"index": int(match["index"]), "name": match["name"]}
        if not devices:
            # ROCm and macOS print one device name (ROCm with its gcnArch) and no count.
            name = " ".join(lines)
            arch = re.search(r"\((gfx[0-9a-f]+)[^)]*\)\s*$", name)
            devices["0"] = {"index": 0, "name": re.sub(r"\s*\(gfx[^)]*\)\s*$", "", name)}
            if arch:
                devices["0"]["arch"] = arch.group(1)
            self.out.put_unknown(
                "gpu", "device_count", "collect_env report names only the first GPU here"
            )
        else:
            self.out.put("gpu", "device_count", len(devices))
        for key, device in devices.items():
            self.device(key, device)
        self.out.put("gpu", "devices", devices)
        driver = self.known("gpu", "driver_version", "driver")
        self.out.put("gpu", "driver_version", driver)
        for name in ("cuda_driver_version", "nvml_version", "cuda_visible_devices"):
            self.out.put_unknown("gpu", name)
        self.out.put_unknown("gpu", "cuda_device_order")
        self.out.note_unknown("gpu", "visible")
        self.out.note_unknown("gpu", "links")

    def device(self, key: str, device: dict[str, Any]) -> None:
        if "arch" not in device:  # ROCm states its gcnArch; NVIDIA names go through the table
            device.update(from_name(device["name"]))
            if device["compute_capability"] is None:
                self.out.note_unknown(
                    "gpu",
                    f"devices.{key}.compute_capability",
                    f"not stated in collect_env report; {device['name']!r} is not in the GPU table",
                )
        complete(self.out, key, device)

    def python(self) -> None:
        raw = self.known("python", "version", "python_version")
        if raw is None:
            return
        match = re.match(r"^(\d+\.\d+(?:\.\d+)?\S*)", raw)
        self.out.put("python", "version", match.group(1) if match else raw)
        compiler = re.search(r"\[([^\]]+)\]", raw)
        if compiler:
            self.out.put("python", "compiler", compiler.group(1).strip())
        else:
            self.out.put_unknown("python", "compiler")
        bits = re.search(r"\((\d+)-bit runtime\)", raw)
        if bits:
            self.fact("python_bits", int(bits.group(1)))

    def system(self) -> None:
        os_line = self.known("system", "os_release", "os")
        platform_line = self.value("python_platform")
        system: str | None = None
        machine: str | None = None
        if os_line:
            arch = _OS_MACHINE.search(os_line)
            if arch:
                machine = arch["machine"]
                os_line = os_line[: arch.start()]
            self.out.put("system", "os_release", os_line)
            if os_line.startswith(("macOS", "Mac OSX")):
                system = "Darwin"
            elif "Windows" in os_line:
                system = "Windows"
        stated = parse_platform(platform_line) if platform_line else {}
        system = stated.get("os") or system
        kernel = stated.get("kernel")
        machine = machine or stated.get("machine")
        libc_raw = self.value("libc")
        libc = (libc_from(libc_raw) if libc_raw else None) or stated.get("libc")
        if libc is not None:
            self.out.put("system", "libc", libc)
            system = system or "Linux"
        elif libc_raw and _is_na(libc_raw):
            self.out.put("system", "libc", None)  # not a Linux libc
        else:
            self.out.put_unknown("system", "libc")
        for name, value in (("os", system), ("kernel", kernel)):
            if value is None:
                self.out.put_unknown("system", name)
            else:
                self.out.put("system", name, value)
        self.out.put_unknown("system", "hostname")
        self.out.put_unknown("system", "memory_total_bytes")
        self.out.put("system", "cpu", self.cpu(machine))
        self.out.put_unknown_container()

    def cpu(self, machine: str | None) -> dict[str, Any]:
        from envsnap.capturing.collectors.system import select_isa_flags

        lines = self.report.blocks.get("cpu") or []
        pairs: dict[str, str] = {}
        last: str | None = None
        for line in lines:
            key, sep, value = line.partition(":") if ":" in line else line.partition("=")
            if sep and key.strip() and not key.strip().startswith("-"):
                last = key.strip().lower()
                pairs.setdefault(last, value.strip())
            elif last == "flags":
                pairs["flags"] = f"{pairs['flags']} {line.strip()}"  # a wrapped flag list
        single = [line for line in lines if ":" not in line and "=" not in line]
        model = pairs.get("model name") or pairs.get("name")
        if model is None and len(lines) == 1 and single:
            model = single[0]  # macOS prints only the brand string
        cores, sockets = pairs.get("core(s) per socket"), pairs.get("socket(s)")
        physical = (
            int(cores) * int(sockets) if cores and sockets and (cores + sockets).isdigit() else None
        )
        logical = pairs.get("cpu(s)")
        cpu: dict[str, Any] = {
            "vendor": pairs.get("vendor id") or pairs.get("manufacturer"),
            "model": model if model and model != "None" else None,
            "architecture": pairs.get("architecture")
            if "architecture" in pairs and not pairs["architecture"].isdigit()
            else machine,
            "isa_flags": select_isa_flags(set(pairs["flags"].split())) if "flags" in pairs else [],
            "logical_cores": int(logical) if logical and logical.isdigit() else None,
            "physical_cores": physical,
            "usable_cores": None,
        }
        for name, value in cpu.items():
            if value is None:
                self.out.note_unknown("system", f"cpu.{name}")
        if "flags" not in pairs:
            self.out.note_unknown("system", "cpu.isa_flags")
        return cpu

    def env(self) -> None:
        loading = self.value("cuda_module_loading")
        allocator = self.value("allocator")
        if loading is None and allocator is None:
            return
        variables: dict[str, str] = {}
        names: list[str] = []
        if loading is not None:
            names.append("CUDA_MODULE_LOADING")
            if loading in ("Could not collect",) or _is_na(loading):
                self.out.note_unknown(
                    "env", "variables.CUDA_MODULE_LOADING", f"collect_env report: {loading}"
                )
            elif loading:
                variables["CUDA_MODULE_LOADING"] = loading
        if allocator is not None:
            names += ["PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"]
            if allocator not in ("N/A", "Could not collect", "{}"):
                variables.update(self.allocator(allocator))
            elif allocator == "Could not collect":
                self.out.note_unknown("env", "variables.PYTORCH_CUDA_ALLOC_CONF", COULD_NOT_COLLECT)
        self.out.put("env", "variables", self.redactor.redact_env(sorted(variables.items())))
        self.out.put("env", "prefixes", [])
        self.out.put("env", "names", sorted(names))
        self.out.put(
            "env",
            "redacted",
            sorted(k for k, v in variables.items() if self.redactor.redact_value(k, v) != v),
        )

    def allocator(self, text: str) -> dict[str, str]:
        """`{'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}` as printed by collect_env."""
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            self.out.note_unknown("env", "variables", f"unreadable allocator config: {text[:80]!r}")
            return {}
        if not isinstance(value, dict):
            return {}
        return {str(k): str(v) for k, v in value.items()}

    def packages(self) -> None:
        if not self.report.packages:
            return
        installed: dict[str, dict[str, Any]] = {}
        conda: dict[str, dict[str, str]] = {}
        from envsnap.capturing.collectors.packages import canonical_name

        for manager, rest in self.report.packages:
            if not rest or rest.startswith(("Could not collect", "No relevant packages")):
                continue
            if manager == "conda":
                parts = rest.split()
                if len(parts) >= 2:
                    conda[parts[0]] = {
                        "version": parts[1],
                        "build": parts[2] if len(parts) > 2 else "",
                    }
                continue
            name, sep, version = rest.partition("==")
            if sep and name.strip() and version.strip():
                installed[canonical_name(name.strip())] = {
                    "name": name.strip(),
                    "version": version.split()[0],
                    "installer": None,
                }
        self.out.put("packages", "installed", dict(sorted(installed.items())))
        self.out.note_unknown(
            "packages",
            "installed",
            "collect_env report lists only packages matching its name patterns "
            "(torch, numpy, nvidia-*, mkl, triton...)",
        )
        self.out.put_unknown("packages", "project_root")
        if conda:
            self.out.put("packages", "conda", dict(sorted(conda.items())))

    def facts(self) -> None:
        for key in ("gcc", "clang", "cmake", "cuda_runtime", "hip_runtime", "miopen", "xpu_build"):
            raw = self.value(key)
            if raw and raw not in ("Could not collect", "No CUDA") and not _is_na(raw):
                self.fact(f"{key}_version", raw)
        for key in ("debug_build", "cuda_available", "xpu_available", "xnnpack"):
            self.fact(f"is_{key}", _bool(self.value(key)))
        for key in ("intel_driver", "intel_onboard", "intel_detected"):
            if self.report.blocks.get(key):
                self.fact(key, self.redactor.redact_text("\n".join(self.report.blocks[key])))
        self.fact("python_platform", self.value("python_platform"))


def to_imported(report: Report, redactor: Redactor | None = None) -> Imported:
    """Map a parsed report onto manifest sections."""
    return _Mapper(report, redactor or Redactor()).run()


def read_collect_env(text: str, redactor: Redactor | None = None) -> Imported:
    """Parse collect_env text and map it; raises ManifestError for text that is not a report."""
    return to_imported(parse_report(text), redactor)
