"""The `cuda_stack` section: torch build, CUDA, cuDNN, cuBLAS, NCCL..., read from installed files.

Nothing is imported or loaded to fill it: versions come from wheel metadata, conda-meta records,
library file names and torch's own `torch/version.py`, read as text.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section

LibrarySource = Literal["torch_lib", "wheel", "conda", "system"]


class LibraryCopy(Model):
    """One installed copy of a CUDA library."""

    source: LibrarySource = Field(
        description="'torch_lib' (bundled inside torch/lib), 'wheel' (an nvidia-* or triton "
        "wheel), 'conda' (a conda-meta record) or 'system' (a shared library on a search path)."
    )
    version: str | None = Field(description="Version of this copy; null when it cannot be read.")
    package: str | None = Field(
        description="Wheel or conda package that provides it (e.g. nvidia-cudnn-cu12)."
    )
    path: str | None = Field(description="Directory holding the library (or the package).")


class Library(Model):
    """A CUDA library and the copy torch will load."""

    version: str | None = Field(
        description="Version of the copy torch loads (see `selected`); null when none was found."
    )
    selected: LibraryCopy | None = Field(
        description="The copy torch will load, by the dynamic loader's search order."
    )
    reason: str = Field(description="Why that copy is the one loaded, or why none is known.")
    copies: list[LibraryCopy] = Field(
        default_factory=list,
        description="Every copy found, in load-precedence order (first = loaded).",
    )


class CudaStackSection(Section):
    torch_version: str | None = Field(
        description="Installed torch version including the local build tag, e.g. '2.3.1+cu121'; "
        "null when torch is not installed."
    )
    torch_build: str | None = Field(
        description="Build tag: 'cu121', 'cpu', 'rocm6.0'..., the local version tag, else derived "
        "from torch.version.cuda / hip; null when torch is not installed."
    )
    torch_path: str | None = Field(description="Directory of the torch package that imports.")
    torch_cuda: str | None = Field(
        description="torch.version.cuda (CUDA toolkit torch was built with), read as text."
    )
    torch_hip: str | None = Field(description="torch.version.hip, read as text.")
    torch_git_version: str | None = Field(description="torch.version.git_version (commit).")
    libraries: dict[str, Library] = Field(
        description="CUDA libraries keyed by component: cudnn, cublas, nccl, cusparse, cufft, "
        "nvjitlink, cuda_runtime, cuda_nvrtc, curand, cusolver, cusparselt, triton..."
    )
    search_dirs: list[str] = Field(
        default_factory=list,
        description="Directories searched for system libraries, in loader order.",
    )
