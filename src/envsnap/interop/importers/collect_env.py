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
onto the manifest's sections, one part at a time: the torch build and CUDA libraries
(collect_env_stack), the machine (collect_env_host) and the package listing
(collect_env_packages).
"""

from __future__ import annotations

import re

from envsnap.capturing.redact import Redactor
from envsnap.errors import ManifestError
from envsnap.interop.importers.base import Imported
from envsnap.interop.importers.bounds import MAX_VALUE_CHARS, truncated
from envsnap.interop.importers.collect_env_host import map_env, map_gpu, map_python, map_system
from envsnap.interop.importers.collect_env_packages import map_packages, parse_listing
from envsnap.interop.importers.collect_env_reading import Reading, Report, as_bool, is_na
from envsnap.interop.importers.collect_env_stack import map_build, map_libraries, torch_files

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
# A paste that lost a line break glues the next label onto a value ("...HBM3Nvidia driver
# version: 535.216.01"). Labels of two letters or a common word (OS, CPU) are left alone.
_GLUED = re.compile(
    r"(?<=\S)(?=(?:"
    + "|".join(
        re.escape(label) for label in sorted(LABELS, key=len, reverse=True) if len(label) > 3
    )
    + r")\s*:)"
)
# `[pip3] torch==2.1.0`, `[pip] numpy==1.24.1`, `[conda] pytorch 2.1.0 py3.10_cuda11.8_0 pytorch`
_PACKAGE_RE = re.compile(r"^\[(?P<manager>pip3?|conda)\]\s*(?P<rest>.*)$", re.IGNORECASE)
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_HTML_RE = re.compile(r"^\s*</?(details|summary)\b[^>]*>.*$", re.IGNORECASE)
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Enough distinctive labels that text is a report, not a file that happens to hold "OS:".
MIN_LABELS = 2
_GENERIC_KEYS = frozenset({"os", "cpu"})


def _clean_lines(text: str) -> list[str]:
    """Undo what pasting does: fences, HTML wrappers, quote markers, backticks, bullets."""
    lines: list[str] = []
    for raw in _ANSI_RE.sub("", text).splitlines():
        if _FENCE_RE.match(raw) or _HTML_RE.match(raw):
            continue
        line = raw.replace("`", "").rstrip()
        while line.lstrip().startswith(">"):
            line = line.lstrip()[1:].lstrip(" ")
        # No report line is this long; a paste may be. Cut first: the split is per character.
        lines.extend(_GLUED.split(truncated(line)))
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
        elif len(report.values[current]) <= MAX_VALUE_CHARS:  # past it: cut, and no more copies
            # An editor wrapped a long line: the rest belongs to the field above.
            joined = f"{report.values[current]} {line.strip()}".strip()
            report.values[current] = truncated(joined)
    if seen < MIN_LABELS:
        raise ManifestError("not a collect_env report (no 'PyTorch version:'-style fields found)")
    return report


# --- mapping onto sections -----------------------------------------------------------------


def _map_torch(reading: Reading) -> None:
    """What the report states of the torch section: version, CUDA/HIP and "Is CUDA available".

    The section's runtime flags are never printed, so it stays unbuilt and these stated
    values are kept with the record's provenance (see base.to_manifest).
    """
    version = reading.stated("torch_version")
    if version is None:
        return
    out = reading.out
    out.put("torch", "version", version)
    for name, key in (("cuda", "cuda_build"), ("hip", "hip_build")):
        raw = reading.known("torch", name, key)
        out.put("torch", name, None if raw is None or is_na(raw) else raw)
    available = as_bool(reading.value("cuda_available"))
    if available is None:
        out.put_unknown("torch", "cuda_available")
    else:
        out.put("torch", "cuda_available", available)


_VERSION_FACTS = ("gcc", "clang", "cmake", "cuda_runtime", "hip_runtime", "miopen", "xpu_build")
_BOOLEAN_FACTS = ("debug_build", "cuda_available", "xpu_available", "xnnpack")
_BLOCK_FACTS = ("intel_driver", "intel_onboard", "intel_detected")


def _map_facts(reading: Reading) -> None:
    """Stated values no section field holds: compilers, runtime versions, availability."""
    for key in _VERSION_FACTS:
        reading.fact(f"{key}_version", reading.stated(key))
    for key in _BOOLEAN_FACTS:
        reading.fact(f"is_{key}", as_bool(reading.value(key)))
    for key in _BLOCK_FACTS:
        if reading.report.blocks.get(key):
            text = "\n".join(reading.report.blocks[key])
            reading.fact(key, reading.redactor.redact_text(text))
    reading.fact("python_platform", reading.value("python_platform"))


def to_imported(report: Report, redactor: Redactor | None = None) -> Imported:
    """Map a parsed report onto manifest sections."""
    reading = Reading(report, redactor or Redactor())
    listing = parse_listing(report.packages)
    files = torch_files(reading, listing)
    map_build(reading, files)
    map_libraries(reading, listing, files)
    _map_torch(reading)
    map_gpu(reading)
    map_python(reading)
    map_system(reading)
    map_env(reading)
    map_packages(reading, listing)
    _map_facts(reading)
    return reading.out


def read_collect_env(text: str, redactor: Redactor | None = None) -> Imported:
    """Parse collect_env text and map it; raises ManifestError for text that is not a report."""
    return to_imported(parse_report(text), redactor)
