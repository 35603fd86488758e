"""What the image states about itself from inside: its variables, its files, its defaults.

NGC framework images and CUDA base images set their identity and library versions as
environment variables (NVIDIA_PYTORCH_VERSION, CUDA_VERSION, CUDNN_VERSION, NCCL_VERSION...;
CUDA base images NV_CUDNN_VERSION, NV_LIBCUBLAS_VERSION; gitlab.com/nvidia/container-images/cuda),
and every image has the os-release of its root. Only Apptainer keeps the image's own
environment apart from the launcher's (/.singularity.d/env/10-docker2singularity.sh holds the
OCI image's ENV, 90-environment.sh the definition's %environment): only there can a variable be
known to be the image's default. The image digest is never visible from inside.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from envsnap.capturing.placement import read_text
from envsnap.manifest.records import ContainerImage, ImageDefault, ImageDefaultSetBy, StatedFact

# Identity fields of ContainerImage -> the variables that state them, first found wins.
_IDENTITY: dict[str, tuple[str, ...]] = {
    "product": ("NVIDIA_PRODUCT_NAME",),
    "release": ("NVIDIA_PYTORCH_VERSION",),
    "build_id": ("NVIDIA_BUILD_ID",),
    "requires_cuda": ("NVIDIA_REQUIRE_CUDA",),
    "name": ("APPTAINER_NAME", "SINGULARITY_NAME"),
    "path": ("APPTAINER_CONTAINER", "SINGULARITY_CONTAINER"),
}
# Library -> the variables an image states its version in (NGC names first, then the CUDA
# base images' NV_* names).
IMAGE_LIBRARIES: dict[str, tuple[str, ...]] = {
    "torch": ("PYTORCH_BUILD_VERSION", "PYTORCH_VERSION"),
    "cuda": ("CUDA_VERSION",),
    "cuda_driver": ("CUDA_DRIVER_VERSION",),
    "cudnn": ("CUDNN_VERSION", "NV_CUDNN_VERSION"),
    "cublas": ("CUBLAS_VERSION", "NV_LIBCUBLAS_VERSION"),
    "nccl": ("NCCL_VERSION", "NV_LIBNCCL_PACKAGE_VERSION"),
    "cufft": ("CUFFT_VERSION",),
    "curand": ("CURAND_VERSION",),
    "cusparse": ("CUSPARSE_VERSION",),
    "cusolver": ("CUSOLVER_VERSION",),
    "tensorrt": ("TRT_VERSION", "TENSORRT_VERSION"),
    "transformer_engine": ("TRANSFORMER_ENGINE_VERSION",),
    "dali": ("DALI_VERSION",),
}
# Variables images set that change numerics or determinism: NGC images set
# TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (fp32 cuBLAS matmuls run as TF32); NVIDIA_TF32_OVERRIDE=0
# disables TF32 in the CUDA libraries; CUBLAS_WORKSPACE_CONFIG makes cuBLAS deterministic.
IMAGE_DEFAULT_NAMES: tuple[str, ...] = (
    "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
    "NVIDIA_TF32_OVERRIDE",
    "TORCH_CUDNN_V8_API_ENABLED",
    "CUBLAS_WORKSPACE_CONFIG",
)
_ENV_DIR = ".singularity.d/env"
_MAX_ENV_FILES = 64
_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*?)\s*$")
# `"${NAME:-"value"}"`: Apptainer's form for an image value the launcher may override.
_DEFAULTED = re.compile(r'^"?\$\{([A-Za-z_][A-Za-z0-9_]*):-"?(.*?)"?\}"?$')
_OS_KEYS = ("ID", "VERSION_ID", "PRETTY_NAME")

Redact = Callable[[str, str], str]


def _literal(name: str, raw: str) -> str | None:
    """The value an `export NAME=...` line assigns, when it is a literal (no expansion left)."""
    defaulted = _DEFAULTED.match(raw)
    if defaulted:
        if defaulted.group(1) != name:
            return None
        raw = defaulted.group(2)
    elif len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        raw = raw[1:-1]
    return None if "$" in raw or "`" in raw else raw


def declared_environment(root: Path) -> tuple[dict[str, tuple[str, str]], str | None]:
    """Name -> (value, file) the image declares (Apptainer's env scripts, later files win),
    and why nothing could be read (None when the image declares its environment)."""
    folder = root / _ENV_DIR
    try:
        names = sorted(entry for entry in os.listdir(folder) if entry.endswith(".sh"))
    except OSError:
        return {}, "the image's own environment is not readable from inside this container"
    declared: dict[str, tuple[str, str]] = {}
    for entry in names[:_MAX_ENV_FILES]:
        text = read_text(root, f"{_ENV_DIR}/{entry}") or ""
        for line in text.splitlines():
            match = _EXPORT.match(line)
            if match:
                value = _literal(match.group(1), match.group(2))
                if value is not None:
                    declared[match.group(1)] = (value, f"file:/{_ENV_DIR}/{entry}")
    return declared, None


def os_release(root: Path) -> dict[str, str]:
    """ID, VERSION_ID and PRETTY_NAME of the running root's os-release."""
    text = read_text(root, "etc/os-release") or read_text(root, "usr/lib/os-release") or ""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in _OS_KEYS:
            found[key] = value.strip().strip("\"'")
    return dict(sorted(found.items()))


def _containerenv(root: Path) -> dict[str, str]:
    """podman's /run/.containerenv: key="value" lines (image, imageid, engine...)."""
    found: dict[str, str] = {}
    for line in (read_text(root, "run/.containerenv") or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key.strip()] = value.strip().strip('"')
    return found


def _stated(env: Mapping[str, str], names: tuple[str, ...], redact: Redact) -> StatedFact | None:
    for name in names:
        value = env.get(name)
        if value:
            return StatedFact(value=redact(name, value), source=f"env:{name}")
    return None


def _defaults(
    env: Mapping[str, str], declared: dict[str, tuple[str, str]], redact: Redact
) -> dict[str, ImageDefault]:
    """The numerics defaults of an image that declares its environment, each with whether the
    process still has the image's value."""
    out: dict[str, ImageDefault] = {}
    for name in IMAGE_DEFAULT_NAMES:
        value = env.get(name)
        shown = None if value is None else redact(name, value)
        if name in declared:
            image_value, source = declared[name]
            set_by: ImageDefaultSetBy = "image" if value == image_value else "changed"
            out[name] = ImageDefault(
                value=shown, image_value=redact(name, image_value), set_by=set_by, source=source
            )
        elif value is not None:
            out[name] = ImageDefault(
                value=shown,
                image_value=None,
                set_by="unknown",
                source="the image declares no literal value for it",
            )
    return out


def read_image(
    root: Path,
    env: Mapping[str, str],
    redact: Redact,
    unknown: dict[str, str],
    *,
    in_container: bool,
) -> ContainerImage:
    """The image's identity, library versions, OS and defaults, as far as its inside states
    them; what it cannot state is listed in `unknown`."""
    image = ContainerImage(
        product=None,
        release=None,
        tag=None,
        image_id=None,
        digest=None,
        name=None,
        path=None,
        build_id=None,
        requires_cuda=None,
        os=os_release(root),
    )
    for field, names in _IDENTITY.items():
        setattr(image, field, _stated(env, names, redact))
    states_itself = in_container or image.product is not None or image.release is not None
    if states_itself:
        for library, names in IMAGE_LIBRARIES.items():
            fact = _stated(env, names, redact)
            if fact is not None:
                image.libraries[library] = fact
    podman = _containerenv(root)
    if podman.get("image"):
        image.tag = StatedFact(value=podman["image"], source="file:/run/.containerenv")
    if podman.get("imageid"):
        image.image_id = StatedFact(value=podman["imageid"], source="file:/run/.containerenv")
    declared, reason = declared_environment(root)
    if reason is None:
        image.defaults = _defaults(env, declared, redact)
    if not states_itself:
        unknown["image"] = "no container marker was seen: the process may not run in an image"
        return image
    if reason is not None:
        # The variables themselves are in env.variables; only who set them is not known.
        unknown["image.defaults"] = f"{reason}: whether the image or the launcher set a variable"
    unknown["image.digest"] = (
        "the inside of a container does not see its image's registry digest (the engine "
        "keeps it); record it from the launcher"
    )
    if image.tag is None:
        unknown["image.tag"] = "no variable or file inside the container states the image tag"
    return image
