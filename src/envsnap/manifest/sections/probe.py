"""The `probe` section: how this torch stack computes, measured by a fixed suite of ops.

Written by `envsnap.probe.run_probe` (see docs/probe.md for the suite). Two manifests whose
digests differ for an op family prove that their numerics differ there; equal digests rule out
the mechanisms that act only through that family.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class ProbeOp(Model):
    """One op of the suite on one device."""

    family: str = Field(
        description="The op family the op stands for (matmul_fp32, conv2d_fp32, sdpa_flash, "
        "atomics, rng, threads...); the differ reasons per family."
    )
    status: Literal["ok", "unsupported", "error"] = Field(
        description="ok; unsupported (this device or build has no kernel for it); error."
    )
    digest: str | None = Field(
        default=None, description="Hex digest of the output's bits: equal bits, equal digest."
    )
    max_rel_error: float | None = Field(
        default=None,
        description="Largest |output - reference| over the largest |reference|, against a "
        "float64 CPU reference from the same inputs: TF32 or bf16 math shows here. Null for "
        "RNG ops.",
    )
    repeat_equal: bool | None = Field(
        default=None,
        description="Whether a second run on the same inputs gave the same bits; false is "
        "nondeterminism (atomics, autotuning).",
    )
    reason: str | None = Field(default=None, description="Why the op is unsupported or failed.")


class ProbeDevice(Model):
    """The suite's run on one device."""

    status: Literal["ok", "unavailable", "error"] = Field(description="Whether the suite ran.")
    reason: str | None = Field(default=None, description="Why it did not run.")
    name: str | None = Field(default=None, description="The CPU or GPU model it ran on.")
    capability: str | None = Field(
        default=None, description="ATen CPU capability (AVX2, AVX512) or GPU sm_XY."
    )
    threads: int | None = Field(default=None, description="torch's intra-op thread count.")
    elapsed_ms: float | None = Field(default=None, description="Time the suite took here.")
    ops: dict[str, ProbeOp] = Field(default_factory=dict, description="Ops keyed by name.")


class ProbeSection(Section):
    """The numerics probe: per device, the digest, error and repeatability of each op."""

    suite: str = Field(
        description="Suite id (envsnap-probe/2): digests compare only between equal suites."
    )
    torch: str | None = Field(default=None, description="torch.__version__ that ran it.")
    elapsed_ms: float | None = Field(default=None, description="Time the whole probe took.")
    devices: dict[str, ProbeDevice] = Field(
        default_factory=dict, description="Runs keyed by device: cpu, cuda:0..."
    )
