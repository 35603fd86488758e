"""What a torch wheel brings moves with it: one cause, one finding.

A torch wheel names its CUDA variant in its version (`1.9.1+cu111`) and ships the libraries of
its build: cuDNN copied into torch/lib before 1.13, pinned nvidia-* wheels after
(wheel_libraries.py). Installing another wheel changes all of them at once, and none of them
can be changed without the others. So where the torch release changed, the CUDA variant its
build names and the libraries inferred from its build join the release's finding as the ways
it acts ("torch 1.9.1+cu111 → 1.12.1+cu113; through it: CUDA variant cu111 → cu113; cuDNN
8.0.5 → 8.3.2"); where only the variant changed, the inferred libraries join the variant's
finding. A library a record states (a pip nvidia-cudnn wheel, a conda package, a system copy)
can change on its own and keeps a finding of its own. A ROCm build is the same: its HIP
runtime and MIOpen versions are those of torch's build configuration (collect_env reads them
from `torch._C._show_config()`), so they join too ("ROCm variant rocm6.0 → rocm6.2; MIOpen
3.0.0 → 3.2.0").
"""

from __future__ import annotations

from typing import Any

from envsnap.diff.catalog import RULES_BY_ID
from envsnap.diff.derived import Hit, get, shown, way_of
from envsnap.manifest.build_tags import BUILD_CONFIGURATION

Doc = dict[str, Any]
RELEASE = "torch-release"  # stack.torch and the build configuration it comes with
VARIANT = "cuda-variant"  # stack.cuda-build and stack.cuda-toolkit
# Where the record states the torch build's own CUDA: its version tag, torch.version.cuda.
_BUILD_PATHS = frozenset(
    {
        "packages.installed.torch.version",
        "cuda_stack.torch_version",
        "cuda_stack.torch_build",
        "cuda_stack.torch_cuda",
        "cuda_stack.torch_hip",
        "torch.version",
        "torch.cuda",
        "torch.hip",
        "torch.cuda_built",
    }
)
_SHIPPED = frozenset({"stack.cudnn", "stack.nccl", "stack.cublas"})
# The ROCm libraries a record can state as torch's build configuration (its HIP and MIOpen).
_ROCM_BUILD = {
    "cuda_stack.libraries.hip_runtime.version": "HIP runtime",
    "cuda_stack.libraries.miopen.version": "MIOpen",
}


def _cause_of(hit: Hit) -> str | None:
    return RULES_BY_ID[hit.rule].merge


def _from_the_build(hit: Hit) -> bool:
    """A library version inferred from the wheel's build (bundled_libraries)."""
    return hit.rule in _SHIPPED and hit.inferred is not None and hit.consequence_of is None


def join_wheel_consequences(hits: list[Hit], a: Doc, b: Doc) -> list[Hit]:
    """The CUDA variant and the inferred libraries joined to the torch release's finding, or
    the inferred libraries to the variant's where the release is the same."""
    causes = {_cause_of(hit) for hit in hits if hit.consequence_of is None}
    # The release of torch itself, not of torchvision beside it.
    if any(_cause_of(hit) == RELEASE and hit.path in _BUILD_PATHS for hit in hits):
        cause = RELEASE
    elif VARIANT in causes:
        cause = VARIANT
    else:
        return hits
    variant_title = _variant_title(hits) if cause == RELEASE else None
    built = {path for path in _ROCM_BUILD if _of_the_build(a, path) or _of_the_build(b, path)}
    return [_joined(hit, cause, variant_title, built) for hit in hits]


def _of_the_build(doc: Doc, version_path: str) -> bool:
    """Whether the record states a ROCm library as torch's own build configuration."""
    reason = get(doc, version_path.rsplit(".", 1)[0] + ".reason")
    return isinstance(reason, str) and reason.startswith(BUILD_CONFIGURATION)


def _joined(hit: Hit, cause: str, variant_title: str | None, built: set[str]) -> Hit:
    """The hit as a way `cause` acts, when it is one; `built` are the ROCm library paths the
    records state as the build's own."""
    if hit.path in built and hit.consequence_of is None:
        title = f"{_ROCM_BUILD[hit.path]} {shown(hit.a)} → {shown(hit.b)}"
        return way_of(hit, cause, title=title)
    if _from_the_build(hit):
        return way_of(hit, cause)
    if (
        cause == RELEASE
        and _cause_of(hit) == VARIANT
        and hit.path in _BUILD_PATHS
        and hit.consequence_of is None
    ):
        return way_of(hit, cause, title=variant_title)
    return hit


def _variant_title(hits: list[Hit]) -> str:
    """'CUDA variant cu111 → cu113' ('ROCm variant rocm6.0 → rocm6.2'), from the build tag
    where the record states one."""
    variant = [hit for hit in hits if _cause_of(hit) == VARIANT and hit.path in _BUILD_PATHS]
    tagged = [hit for hit in variant if hit.path == "cuda_stack.torch_build"]
    shown = (tagged or variant)[:1]
    if not shown:
        return "CUDA variant changed"
    platform = "ROCm" if any("rocm" in str(v) for v in (shown[0].a, shown[0].b)) else "CUDA"
    return f"{platform} variant {shown[0].a} → {shown[0].b}"
