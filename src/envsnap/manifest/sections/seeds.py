"""The `seeds` section: declared seeds and determinism settings, and the observed RNG state."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section

DeterminismLevel = Literal["off", "seeded", "deterministic"]
DeclaredBy = Literal["argument", "process"]


class DeterminismFlags(Model):
    """The determinism switches a `SeedManager` level applied (null: left untouched)."""

    cudnn_deterministic: bool | None = Field(
        default=None, description="Value set on torch.backends.cudnn.deterministic."
    )
    cudnn_benchmark: bool | None = Field(
        default=None, description="Value set on torch.backends.cudnn.benchmark."
    )
    deterministic_algorithms: bool | None = Field(
        default=None, description="Mode passed to torch.use_deterministic_algorithms."
    )
    warn_only: bool | None = Field(
        default=None,
        description="warn_only passed to torch.use_deterministic_algorithms: ops without a "
        "deterministic implementation warn instead of raising.",
    )
    cublas_workspace_config: str | None = Field(
        default=None, description="Value set on the CUBLAS_WORKSPACE_CONFIG variable."
    )
    cuda_initialized_before: bool | None = Field(
        default=None,
        description="True when CUDA was already initialised as the level was applied, so "
        "CUBLAS_WORKSPACE_CONFIG may have had no effect; null when torch was not imported.",
    )


class SeedsSection(Section):
    declared_by: DeclaredBy | None = Field(
        default=None,
        description="Where the declared seeds come from: 'argument' (a SeedManager passed as "
        "seeds= to envsnap.capture), 'process' (the last SeedManager applied in this process), "
        "or null when no seed was declared through envsnap.",
    )
    master_seed: int | None = Field(
        default=None, description="Declared master seed from which every other seed is derived."
    )
    rank: int | None = Field(
        default=None, description="Distributed rank mixed into the derived seeds (null: none)."
    )
    derived: dict[str, int] = Field(
        default_factory=dict,
        description="Seeds derived from the master seed by sha256, keyed by purpose "
        "(python, numpy, torch, cuda...).",
    )
    seeded: list[str] = Field(
        default_factory=list,
        description="Libraries the SeedManager seeded (python, numpy, torch, cuda), sorted.",
    )
    level: DeterminismLevel | None = Field(
        default=None,
        description="Determinism level applied: 'off' (nothing), 'seeded' (RNGs seeded), "
        "'deterministic' (seeded plus deterministic kernels); null when not declared.",
    )
    flags: DeterminismFlags | None = Field(
        default=None, description="Determinism switches the level applied; null when none."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Warnings raised while applying the level (e.g. CUDA already initialised).",
    )
    torch_imported: bool = Field(
        default=False, description="True when the job had imported torch at capture time."
    )
    torch_initial_seed: int | None = Field(
        default=None,
        description="torch.initial_seed() at capture time; null when torch was not imported.",
    )
    cuda_initialized: bool | None = Field(
        default=None,
        description="Whether CUDA was initialised at capture time; null when torch was not "
        "imported (envsnap never initialises CUDA itself).",
    )
    cuda_initial_seeds: dict[str, int] | None = Field(
        default=None,
        description="initial_seed() of each CUDA device's default generator keyed by device "
        "index; null unless CUDA was already initialised.",
    )
    state_digests: dict[str, str] = Field(
        default_factory=dict,
        description="sha256 of the current RNG state of each library already imported "
        "(python, numpy, torch), keyed by library. Equal digests mean equal streams from here.",
    )
    pythonhashseed: str | None = Field(
        default=None,
        description="PYTHONHASHSEED as set for the process; null when unset (str hashing "
        "is then randomised per process).",
    )
