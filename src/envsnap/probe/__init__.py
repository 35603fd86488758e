"""The numerics probe: a few milliseconds of fixed computations whose output bits fingerprint
how this torch stack computes.

Two manifests whose probes differ in an op family prove that their numerics differ there; equal
probes rule those mechanisms out. `import envsnap.probe` does not import torch: `run_probe` does.
"""

from __future__ import annotations

from envsnap.probe.runner import run_probe
from envsnap.probe.suite import PROBE_SUITE

__all__ = ["PROBE_SUITE", "run_probe"]
