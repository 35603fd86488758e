"""What a torch version string says about its build, parsed with `packaging`.

A torch version is a PEP 440 version whose local part (after `+`) is sometimes a build tag and
sometimes something else entirely:

- wheels from download.pytorch.org: `2.1.0+cu118`, `2.3.0+rocm6.0`, `2.4.0+cpu`, `2.5.0+xpu`;
- nightlies: `2.6.0.dev20241001+cu124`;
- source builds: `1.8.0a0+1606899` or `2.1.0a0+git1234abc` (the short commit the build came
  from, with or without a `git` prefix);
- NVIDIA NGC containers: `2.5.0a0+b465a5843b.nv24.09` (commit, then the container release).

Only the first kind is a build tag. For the others the tag is derived from the CUDA or HIP
version torch was built with, which collect_env and `torch.version` print in full
(`9.0.176`, `6.0.32830-d62f6a171`): the tag keeps major.minor, as the wheel tags do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

# How a record says that a library's version is the one torch's own build configuration names
# (a ROCm build's HIP and MIOpen, read from torch._C._show_config()): the reason it gives
# starts with this. Such a library moves with the torch build.
BUILD_CONFIGURATION = "torch's build configuration"

# Local-version segments that name a build variant (packaging lower-cases the local part).
_TAG = re.compile(r"^(cu\d+|cpu|rocm\d+(?:\.\d+)*|xpu)$")
_NGC = re.compile(r"^nv(\d{2})$")
_COMMIT = re.compile(r"^(?:git)?([0-9a-f]{7,40})$")
_LEADING_VERSION = re.compile(r"^\s*(\d+(?:\.\d+)*)")


@dataclass(frozen=True)
class TorchVersion:
    """The parts of a torch version string."""

    public: str
    local: str | None
    tag: str | None
    commit: str | None
    ngc_release: str | None
    nightly: str | None


def parse_torch_version(text: str) -> TorchVersion | None:
    """Split a torch version into its parts; None when it is not a PEP 440 version."""
    try:
        version = Version(text.strip())
    except InvalidVersion:
        return None
    local = version.local
    segments = local.split(".") if local else []
    tag = local if local and _TAG.match(local) else None
    commit = next(
        (m.group(1) for s in segments if (m := _COMMIT.match(s)) and not s.isdigit()), None
    )
    if commit is None and segments and segments[0].isdigit() and len(segments[0]) >= 7:
        commit = segments[0]  # an all-digit short hash, as in 1.8.0a0+1606899
    ngc = _ngc_release(segments)
    nightly = f"{version.dev}" if version.dev is not None and version.dev > 20_000_000 else None
    return TorchVersion(
        public=version.public,
        local=text.strip().split("+", 1)[1] if local else None,
        tag=tag,
        commit=commit if tag is None else None,
        ngc_release=ngc,
        nightly=nightly,
    )


def _ngc_release(segments: list[str]) -> str | None:
    """'24.09' from the segments of `...+b465a5843b.nv24.09` (packaging writes 'nv24.9')."""
    for index, segment in enumerate(segments[:-1]):
        match = _NGC.match(segment)
        if match and segments[index + 1].isdigit():
            return f"{match[1]}.{int(segments[index + 1]):02d}"
    return None


def major_minor(text: str | None) -> str | None:
    """'9.0.176' -> '9.0', '12.4' -> '12.4', '6.0.32830-d62f6a171' -> '6.0'; None otherwise."""
    if not text:
        return None
    match = _LEADING_VERSION.match(text)
    if match is None:
        return None
    release = Version(match.group(1)).release
    return f"{release[0]}.{release[1] if len(release) > 1 else 0}"


def build_tag(version: str | None, cuda: str | None, hip: str | None) -> str | None:
    """'cu121', 'cpu', 'rocm6.0', 'xpu': the wheel tag, else derived from the CUDA/HIP version.

    None when nothing is known: no version and no toolkit, or a version that is not PEP 440.
    """
    parsed = parse_torch_version(version) if version else None
    if version and parsed is None:
        return None
    if parsed is not None and parsed.tag is not None:
        return parsed.tag
    cuda_mm = major_minor(cuda)
    if cuda_mm is not None:
        return "cu" + cuda_mm.replace(".", "")
    hip_mm = major_minor(hip)
    if hip_mm is not None:
        return "rocm" + hip_mm
    return "cpu" if version else None


def is_build_tag(local: str | None) -> bool:
    """True for a local version that names a build variant (`cu121`, `cpu`, `rocm6.0`, `xpu`),
    False for a commit, an NGC release or anything else."""
    return local is not None and _TAG.match(local.lower()) is not None


def commit_of(version: object) -> str | None:
    """The source commit a version's local part names (`1.8.0a0+1606899`), else None."""
    if not isinstance(version, str):
        return None
    parsed = parse_torch_version(version)
    return parsed.commit if parsed is not None else None
